package readrules

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"fieldapi/catalog"
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

// testShapedLines: fields naming a line list of the read shape with
// Shape.Lines reads each line with its key and the fields named (and the
// owner field it is found by), the lines and their order those of the
// whole read; an expanded line list with Expand.MaxLines is refused
// (*engine.TooManyLinesError) when a record carries more, and read whole
// when none does.
func testShapedLines(t *testing.T, s *suite) {
	s.Demo(t, "tasks.Status", "tasks/materials", "customers/contacts", "customers.Name", "contacts.Name")
	ctx := context.Background()
	tasks, materials := s.Catalog.Register("tasks"), s.Catalog.Register("materials")
	parent := tasks.Lines[slices.IndexFunc(tasks.Lines, func(l *catalog.Line) bool { return l.ReadName == "Materials" })].Parent
	whole, err := s.Engine.List(ctx, kit.DemoAPI, "tasks", engine.Query{Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := s.Engine.List(ctx, kit.DemoAPI, "tasks", engine.Query{Limit: 20, Shape: engine.Shape{
		Fields: []string{"Status", "Materials"},
		Lines:  map[string][]string{"Materials": {materials.Key, "ProductNr"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(narrow.Records) != len(whole.Records) {
		t.Fatalf("%d tasks narrowed; want %d as whole", len(narrow.Records), len(whole.Records))
	}
	lines := 0
	for i, rec := range narrow.Records {
		if rec["Times"] != nil {
			t.Errorf("task %v: Times read, which fields leaves out", rec[tasks.Key])
		}
		got, want := rec.Lines("Materials"), whole.Records[i].Lines("Materials")
		if len(got) != len(want) {
			t.Fatalf("task %v: %d Materials narrowed; want %d as whole", rec[tasks.Key], len(got), len(want))
		}
		for j, line := range got {
			lines++
			if line[materials.Key] != want[j][materials.Key] || line["ProductNr"] != want[j]["ProductNr"] {
				t.Errorf("task %v line %d: %v; want the Id and ProductNr of %v", rec[tasks.Key], j, line, want[j])
			}
			for name := range line {
				if name != materials.Key && name != "ProductNr" && name != parent && name != engine.VersionField {
					t.Errorf("task %v line %d: %s read too (%v)", rec[tasks.Key], j, name, line[name])
				}
			}
		}
	}
	if lines == 0 {
		t.Fatal("no material line checked: the demo's first tasks have none")
	}

	// A customer with three contacts, newest first on the page; the most
	// contacts a customer of the page carries, then a cap below it.
	in := kit.Values(map[string]any{"Name": "Tre kontakter AB"})
	for _, name := range []string{"Första", "Andra", "Tredje"} {
		in.AddLine("contacts", kit.Values(map[string]any{"Name": name}))
	}
	s.MustCreateIn(t, kit.DemoAPI, "customers", in)
	customers, err := s.Engine.List(ctx, kit.DemoAPI, "customers", engine.Query{Limit: 50, Shape: engine.Shape{Expand: []engine.Expand{{Name: "Contacts"}}}})
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, rec := range customers.Records {
		most = max(most, len(rec.Lines("Contacts")))
	}
	if most < 3 {
		t.Fatalf("no customer of the page has three contacts (%d at most)", most)
	}
	capped := func(n int) (engine.Page, error) {
		return s.Engine.List(ctx, kit.DemoAPI, "customers", engine.Query{Limit: 50, Shape: engine.Shape{Expand: []engine.Expand{{Name: "Contacts", MaxLines: n}}}})
	}
	var tooMany *engine.TooManyLinesError
	if _, err := capped(most - 1); !errors.As(err, &tooMany) || tooMany.Expansion != "Contacts" || tooMany.Most != most-1 {
		t.Errorf("Contacts capped at %d, one below the most a customer carries: %v; want a TooManyLinesError", most-1, err)
	}
	page, err := capped(most)
	if err != nil {
		t.Fatalf("Contacts capped at %d, the most a customer carries: %v", most, err)
	}
	for i, rec := range page.Records {
		if len(rec.Lines("Contacts")) != len(customers.Records[i].Lines("Contacts")) {
			t.Errorf("customer %d capped at the most: %d contacts; want %d", i, len(rec.Lines("Contacts")), len(customers.Records[i].Lines("Contacts")))
		}
	}
}
