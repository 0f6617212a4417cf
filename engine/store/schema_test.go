package store

import (
	"strings"
	"testing"
)

// TestCheckRefusesSeqTextItCannotFill: a SeqText column must be text, in
// a table with a Seq.
func TestCheckRefusesSeqTextItCannotFill(t *testing.T) {
	for _, tc := range []struct {
		name  string
		table *Table
		want  string
	}{
		{"fine", &Table{Name: "t", Seq: true, Columns: []Column{{Field: "Id", Name: "id", Type: Text, SeqText: true}}}, ""},
		{"not text", &Table{Name: "t", Seq: true, Columns: []Column{{Field: "Id", Name: "id", Type: Int, SeqText: true}}},
			"store schema: table t: column Id holds the Seq as text: it must be Text, in a table with a Seq"},
		{"no seq", &Table{Name: "t", Key: []string{"Id"}, Columns: []Column{{Field: "Id", Name: "id", Type: Text, SeqText: true}}},
			"store schema: table t: column Id holds the Seq as text: it must be Text, in a table with a Seq"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Schema{Tables: []*Table{tc.table}}).Check()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Check: %v; want %q", err, tc.want)
			}
		})
	}
}

func TestSeqText(t *testing.T) {
	if got := SeqText(1234567890123); got != "1234567890123" {
		t.Fatalf("SeqText = %q", got)
	}
}
