package writerules

import (
	"context"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest/kit"
)

// importCompany is a small company: its signature, a customer and a
// finished task without owner. The task sets a read-only field (Id), a
// lookup (CustomerName), a read-only extra field and a status no API call
// could give it.
func importCompany(batches ...dataset.Batch) dataset.Company {
	base := dataset.Batch{Name: "test.base", ExtraFieldDefs: []dataset.ExtraFieldDef{
		{Register: "tasks", Key: "Ref", Name: "Ref", Category: "Admin", Type: "Text", ReadOnly: true},
	}, Registers: []dataset.Register{
		{Name: "users", Records: []dataset.Record{{Values: map[string]any{"Sign": "API", "Name": "API", "Status": "Active"}, Permissions: "*"}}},
		{Name: "customers", Records: []dataset.Record{{Values: map[string]any{"Nr": "7", "Name": "Imported AB"}}}},
		{Name: "tasks", Records: []dataset.Record{{
			Values: map[string]any{"Nr": "500", "Id": "imported-1", "CustomerNr": "7", "CustomerName": "As it was then",
				"Status": "Finished", "OwnerSign": "", "UserSigns": []any{"API"}, "AssigneeStatuses": map[string]any{"API": "Finished"}},
			Extra: map[string]string{"Ref": "kept"},
		}}},
	}}
	return dataset.Company{ID: "imp", Name: "Imported", Batches: append([]dataset.Batch{base}, batches...)}
}

// testImport: the import path writes records as they are given — fields
// no API call may write, lookups as stored, read-only extra fields, a
// status without a transition — records no event, and moves the number
// series past the keys imported; the API's rules still hold for what was
// imported. A batch runs once; a batch naming a register the catalog
// lacks waits; a bad batch is refused whole, naming record and field,
// and is not marked imported.
func testImport(t *testing.T, s *suite) {
	im := s.Demo(t, "tasks.Id", "tasks.Status", "tasks.CustomerName", "tasks.OwnerSign", "tasks.UserSigns", "tasks.AssigneeStatuses",
		"customers.Name", "users")
	ctx := context.Background()
	imp := engine.Session{Company: "imp", Sign: "API", ClientID: "enginetest"}
	if err := im.Import(ctx, importCompany()); err != nil {
		t.Fatalf("Import: %v", err)
	}
	task := s.Get(t, imp, "tasks", "500")
	for field, want := range map[string]any{
		"Id":           "imported-1",     // a field no API call may write
		"Status":       "Finished",       // no transition from the default was checked
		"CustomerName": "As it was then", // stored as given: no lookup resolved
	} {
		if task[field] != want {
			t.Errorf("the imported task: %s = %#v; want %#v", field, task[field], want)
		}
	}
	if got := task.Object("ExtraFields")["Ref"]; got != "kept" {
		t.Errorf("the imported task's read-only extra field Ref = %q; want kept", got)
	}
	if feed := s.Feed(t); feed != nil {
		if evs := s.EventsAfter(t, feed, imp, 0); len(evs) != 0 {
			t.Errorf("the import recorded %d events; want none (nothing imported is an API change)", len(evs))
		}
	}
	s.ExpectLog(t, imp, "tasks", "500")
	s.ExpectLog(t, imp, "customers", "7")

	// The API's rules still hold for the imported task: no owner, no move.
	if cmd, ok := s.Engine.(engine.Commands); ok {
		var c kit.Capture
		_, err := cmd.Act(ctx, imp, "tasks", "500", "status", kit.Values(map[string]any{"Status": "Archived"}), c.Receipt(kit.NoClaim))
		if ce := refused(t, err, "Act status on a task without owner"); !strings.Contains(ce.Detail, "no owner") {
			t.Errorf("Act status on a task without owner: %q; want the refusal to say it has no owner", ce.Detail)
		}
	} else {
		t.Log("the engine offers no engine.Commands: the imported task's status action is not checked")
	}
	// The series continues after the keys imported.
	if rec := s.MustCreateIn(t, imp, "tasks", kit.Values(map[string]any{"CustomerNr": "7"})); rec["Nr"] != "501" {
		t.Errorf("a task created after the import: Nr %v; want 501, after the imported 500", rec["Nr"])
	}

	// Again: the batch was imported, nothing is added.
	if err := im.Import(ctx, importCompany()); err != nil {
		t.Fatalf("Import again: %v", err)
	}
	if n := s.Total(t, imp, "tasks"); n != 2 {
		t.Errorf("%d tasks after importing again; want 2 (the imported one and the one created), nothing added", n)
	}
	if n := s.Total(t, imp, "customers"); n != 1 {
		t.Errorf("%d customers after importing again; want 1", n)
	}

	// A batch on a register the catalog lacks waits; a bad one is refused
	// whole, naming the record and field, and not marked imported.
	const absent = "enginetest_absent" // a register no catalog declares
	waiting := dataset.Batch{Name: "test.waiting", Registers: []dataset.Register{{Name: absent, Records: []dataset.Record{{Values: map[string]any{"Nr": "1"}}}}}}
	if s.Catalog.Register(absent) != nil {
		t.Fatalf("the catalog declares a register %s: the test needs one it lacks", absent)
	}
	bad := dataset.Batch{Name: "test.bad", Registers: []dataset.Register{{Name: "customers", Records: []dataset.Record{
		{Values: map[string]any{"Nr": "8", "Name": "Fine"}},
		{Values: map[string]any{"Nr": "9", "Colour": "red"}},
	}}}}
	err := im.Import(ctx, importCompany(waiting, bad))
	if err == nil || !strings.Contains(err.Error(), `test.bad: customers[1]: customers has no field "Colour"`) {
		t.Errorf("Import of a bad batch: %v; want an error naming test.bad: customers[1] and the field Colour", err)
	}
	if n := s.Total(t, imp, "customers"); n != 1 {
		t.Errorf("%d customers after a refused import; want 1: nothing of it stays", n)
	}
	// The refused batch was not marked imported: fixed, it imports now.
	bad.Registers[0].Records[1] = dataset.Record{Values: map[string]any{"Nr": "9", "Name": "Fixed"}}
	if err := im.Import(ctx, importCompany(waiting, bad)); err != nil {
		t.Fatalf("Import of the batch fixed: %v", err)
	}
	if n := s.Total(t, imp, "customers"); n != 3 {
		t.Errorf("%d customers after importing the fixed batch; want 3: the refused one was not marked imported", n)
	}

	wrongType := dataset.Batch{Name: "test.type", Registers: []dataset.Register{{Name: "customers", Records: []dataset.Record{
		{Values: map[string]any{"Nr": "10", "Name": 42.0}}}}}}
	if err := im.Import(ctx, importCompany(wrongType)); err == nil {
		t.Error("Import of a number into a text field succeeded; want an error")
	}
	if n := s.Total(t, imp, "customers"); n != 3 {
		t.Errorf("%d customers after a refused import; want 3", n)
	}
}
