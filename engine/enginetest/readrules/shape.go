package readrules

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testShapedReads: a list or get shaped by fields= and expand= (engine
// Query.Shape, engine.ShapedReads) reads the key and the fields named and
// leaves the others out, line lists and extra fields included; each
// expansion is the related record exactly as its own Get reads it (nil
// where the reference names none), or the line list its own list holds;
// expanding a register the signature may not read is refused as reading
// it is.
func testShapedReads(t *testing.T, s *suite) {
	s.Demo(t, "tasks.Status", "tasks.CustomerNr", "customers/contacts")
	ctx := context.Background()
	checked := 0
	for _, r := range s.Catalog.Registers {
		xs := r.Expansions()
		if len(xs) == 0 {
			continue
		}
		var expand []engine.Expand
		for _, x := range xs {
			expand = append(expand, engine.Expand{Name: x.Name})
		}
		page, err := s.Engine.List(ctx, kit.DemoAPI, r.Name, engine.Query{Limit: 10, Shape: engine.Shape{Expand: expand}})
		if err != nil {
			t.Fatalf("List %s expanding %v: %v", r.Name, expand, err)
		}
		for _, rec := range page.Records {
			for _, x := range xs {
				got, ok := rec[x.Name]
				if !ok {
					t.Errorf("%s %s: no %s", r.Name, kit.KeyIn(t, rec, r.Key), x.Name)
					continue
				}
				target := s.Catalog.Register(x.Register)
				if x.Line != nil {
					var want, keys []string
					where := []engine.Condition{kit.Equals(x.Line.Parent, kit.KeyIn(t, rec, r.Key))}
					for field, value := range x.Line.Set {
						where = append(where, kit.Equals(field, value))
					}
					for _, line := range s.Walk(t, kit.DemoAPI, x.Register, 100, where...) {
						want = append(want, kit.KeyIn(t, line, target.Key))
					}
					for _, line := range got.([]engine.Record) {
						keys = append(keys, kit.KeyIn(t, line, target.Key))
					}
					slices.Sort(want)
					slices.Sort(keys)
					if !slices.Equal(keys, want) {
						t.Errorf("%s %s: %s %v; want %v", r.Name, kit.KeyIn(t, rec, r.Key), x.Name, keys, want)
					}
					checked++
					continue
				}
				ref, _ := rec[x.Field.Name].(string)
				if ref == "" {
					if got != nil {
						t.Errorf("%s %s: %s = %v without a %s", r.Name, kit.KeyIn(t, rec, r.Key), x.Name, got, x.Field.Name)
					}
					continue
				}
				if want := s.Get(t, kit.DemoAPI, x.Register, ref); !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: %s\n%v\nwant it as its Get reads it\n%v", r.Name, kit.KeyIn(t, rec, r.Key), x.Name, got, want)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no expansion checked: the demo data names no related record")
	}

	// fields= reads the key and the fields named, nothing else.
	page, err := s.Engine.List(ctx, kit.DemoAPI, "tasks", engine.Query{Limit: 5, Shape: engine.Shape{Fields: []string{"Status"}}})
	if err != nil {
		t.Fatal(err)
	}
	tasks := s.Catalog.Register("tasks")
	for _, rec := range page.Records {
		for name := range rec {
			if name != tasks.Key && name != "Status" && name != engine.VersionField {
				t.Errorf("tasks with fields Status: %s read too (%v)", name, rec[name])
			}
		}
		if rec["Status"] == nil {
			t.Errorf("tasks with fields Status: %v lacks it", rec)
		}
	}
	if reads, ok := s.Engine.(engine.ShapedReads); ok && len(page.Records) > 0 {
		key := kit.KeyIn(t, page.Records[0], tasks.Key)
		one, err := reads.GetShaped(ctx, kit.DemoAPI, "tasks", key, engine.Shape{Fields: []string{"Status"}, Expand: []engine.Expand{{Name: "Customer", Fields: []string{"Name"}}}})
		if err != nil {
			t.Fatal(err)
		}
		customer, _ := one["Customer"].(engine.Record)
		if one["Status"] != page.Records[0]["Status"] || customer == nil || customer["Name"] == nil || customer["City"] != nil {
			t.Errorf("GetShaped tasks %s: %v; want its Status and its Customer's Name", key, one)
		}
		if _, err := reads.GetShaped(ctx, kit.DemoAPI, "tasks", "no-such-task", engine.Shape{Fields: []string{"Status"}}); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("GetShaped of no task: %v; want ErrNotFound", err)
		}
	}

	// The signature's permissions hold for an expanded register as for a read of it.
	limited := kit.DemoAs("ERJO")
	_, readErr := s.Engine.List(ctx, limited, "contacts", engine.Query{Limit: 1})
	_, expandErr := s.Engine.List(ctx, limited, "customers", engine.Query{Limit: 1, Shape: engine.Shape{Expand: []engine.Expand{{Name: "Contacts"}}}})
	var denied *engine.PermissionError
	if errors.As(readErr, &denied) != errors.As(expandErr, &denied) || (readErr == nil) != (expandErr == nil) {
		t.Errorf("ERJO lists contacts: %v; expands customers' Contacts: %v; want the same answer", readErr, expandErr)
	}
}
