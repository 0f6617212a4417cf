package registers_test

import (
	"slices"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine/pipeline/registers"
)

// TestNoIndexRepeatsTheStartOfAnother: every index costs a b-tree write
// per row inserted, so a plain index whose fields begin another index of
// its table (which serves the same lookups) is not declared; a line
// list's parent, which leads its lines index, gets no filter index of its
// own (materials once had both).
func TestNoIndexRepeatsTheStartOfAnother(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := registers.Schema(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range schema.Tables {
		for _, a := range tb.Indexes {
			for _, b := range tb.Indexes {
				if a.Name != b.Name && !a.Unique && len(a.Fields) <= len(b.Fields) && slices.Equal(a.Fields, b.Fields[:len(a.Fields)]) {
					t.Errorf("%s: index %s %v repeats the start of %s %v", tb.Name, a.Name, a.Fields, b.Name, b.Fields)
				}
			}
		}
	}
}
