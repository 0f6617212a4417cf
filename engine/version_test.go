package engine

import (
	"fmt"
	"testing"

	"github.com/matryer/is"
)

func TestVersionChangesWithAnyValueAndOnlyThen(t *testing.T) {
	is := is.New(t)
	rec := func() Record {
		return Record{"Nr": "1001", "Name": "Ola AS", "Price": 12.5, "Active": true, "Tags": []string{"a", "b"},
			"ExtraFields": map[string]string{"Visit.Type": "Service", "Colour": ""}, "Note": nil,
			"Lines": []Record{{"Id": "1", "Qty": 2.0}}}
	}
	base := rec().Version()
	is.Equal(len(base), 32)
	is.Equal(rec().Version(), base) // the same record, the same version (map order does not matter)
	for name, change := range map[string]func(Record){
		"text":          func(r Record) { r["Name"] = "Ola A/S" },
		"number":        func(r Record) { r["Price"] = 12.25 },
		"bool":          func(r Record) { r["Active"] = false },
		"null to empty": func(r Record) { r["Note"] = "" },
		"list order":    func(r Record) { r["Tags"] = []string{"b", "a"} },
		"extra field":   func(r Record) { r["ExtraFields"] = map[string]string{"Visit.Type": "Service", "Colour": "Red"} },
		"line":          func(r Record) { r["Lines"] = []Record{{"Id": "1", "Qty": 3.0}} },
		"field added":   func(r Record) { r["City"] = "Bergen" },
		"text boundary": func(r Record) { r["Nr"], r["Name"] = "1001Ola", " AS" },
	} {
		r := rec()
		change(r)
		if r.Version() == base {
			t.Errorf("%s: the version did not change", name)
		}
	}
	r := rec()
	r[VersionField] = "rowversion-7"
	is.Equal(r.Version(), "rowversion-7") // an engine's own version wins
}

func TestCheckVersion(t *testing.T) {
	is := is.New(t)
	rec := Record{"Nr": "1"}
	is.NoErr(Input{}.CheckVersion(rec))
	is.NoErr(Input{IfMatch: []string{"other", rec.Version()}}.CheckVersion(rec))
	is.Equal(Input{IfMatch: []string{"other"}}.CheckVersion(rec), ErrPreconditionFailed)
}

// BenchmarkVersion: the ETag of a customer-sized record, computed on
// every read of one record.
func BenchmarkVersion(b *testing.B) {
	rec := Record{"ExtraFields": map[string]string{"City.Upper": "STOCKHOLM", "Credit.Rating": "AAA", "Service.Level": "Bronze"}}
	for i := range 20 {
		rec[fmt.Sprintf("Field%02d", i)] = fmt.Sprintf("value number %d", i)
	}
	for b.Loop() {
		rec.Version()
	}
}
