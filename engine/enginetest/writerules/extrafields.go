package writerules

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/enginetest/kit"
)

// testExtraFieldWrites: extra-field values are checked against the
// company's definitions on create and update alike, and a refused write
// writes nothing; a register without extra fields takes none.
func testExtraFieldWrites(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name", "contacts")
	writable := []string{"Invoice_Email", "Service.Level", "contract_end"}
	for _, c := range []struct {
		name   string
		extra  map[string]string
		detail string
		valid  []string
	}{
		{"unknown key", map[string]string{"Colour": "red"}, `unknown extra field "Colour"`, writable},
		{"read only", map[string]string{"Credit.Rating": "AAA"}, `extra field "Credit.Rating" is read only`, nil},
		{"computed", map[string]string{"Display_Name": "x"}, `extra field "Display_Name" is computed by the engine and cannot be written`, nil},
		{"not a date", map[string]string{"contract_end": "end of year"}, `extra field "contract_end": "end of year" is not a date (want YYYY-MM-DD or an ISO 8601 date-time)`, nil},
		{"not an option", map[string]string{"Service.Level": "Platinum"}, `extra field "Service.Level": "Platinum" is not one of its options`, []string{"Bronze", "Silver", "Gold"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := kit.Values(map[string]any{"Name": "Extra AB"})
			in.Extra = c.extra
			_, err := s.CreateIn(kit.DemoAPI, "customers", in)
			ce := refusedWith(t, err, "Create", c.detail)
			if !reflect.DeepEqual(ce.ValidValues, c.valid) {
				t.Errorf("Create: ValidValues %v; want %v", ce.ValidValues, c.valid)
			}
			before := s.Get(t, kit.DemoAPI, "customers", "1002")
			_, err = s.UpdateIn(kit.DemoAPI, "customers", "1002", engine.Input{Values: map[string]any{}, Extra: c.extra})
			refusedWith(t, err, "Update", c.detail)
			if after := s.Get(t, kit.DemoAPI, "customers", "1002"); !reflect.DeepEqual(after, before) {
				t.Errorf("a refused update changed customer 1002: %v; was %v", after, before)
			}
		})
	}
	if n := len(s.Walk(t, kit.DemoAPI, "customers", 100, kit.Contains("Name", "Extra AB"))); n != 0 {
		t.Errorf("refused creates left %d customers", n)
	}
	contact := s.FirstKey(t, kit.DemoAPI, "contacts")
	_, err := s.UpdateIn(kit.DemoAPI, "contacts", contact, engine.Input{Values: map[string]any{}, Extra: map[string]string{"x": "y"}})
	refusedWith(t, err, "Update a contact's extra field", "contacts have no extra fields")
}

// testExtraFieldsOnRead: a record reads every extra field the company
// defines — the values written, "" for those without, the computed ones
// from the record (Unicode upper case too); "" clears a value and the
// others stay; every record of a page carries every key; a register
// without extra fields carries none.
func testExtraFieldsOnRead(t *testing.T, s *suite) {
	s.Demo(t, "customers.Name", "customers.City", "contacts")
	in := kit.Values(map[string]any{"Name": "Fältet AB", "City": "Umeå"})
	in.Extra = map[string]string{"Service.Level": "Gold", "contract_end": "2026-06-30", "Invoice_Email": "faktura@faltet.se"}
	nr := kit.KeyIn(t, s.MustCreateIn(t, kit.DemoAPI, "customers", in), "Nr")

	want := map[string]string{
		"Service.Level": "Gold", "contract_end": "2026-06-30", "Invoice_Email": "faktura@faltet.se",
		"Credit.Rating": "",                 // defined, empty
		"Display_Name":  "Fältet AB / Umeå", // computed from the record
		"City.Upper":    "UMEÅ",             // Unicode upper case on every storage
	}
	if got := s.Get(t, kit.DemoAPI, "customers", nr)["ExtraFields"]; !reflect.DeepEqual(got, want) {
		t.Errorf("ExtraFields = %#v; want %#v", got, want)
	}

	rec := s.MustUpdateIn(t, kit.DemoAPI, "customers", nr, engine.Input{Values: map[string]any{"City": "Luleå"}, Extra: map[string]string{"Service.Level": ""}})
	want = maps.Clone(want)
	want["Service.Level"], want["Display_Name"], want["City.Upper"] = "", "Fältet AB / Luleå", "LULEÅ"
	if got := rec["ExtraFields"]; !reflect.DeepEqual(got, want) {
		t.Errorf("ExtraFields after the update = %#v; want %#v", got, want)
	}

	page, err := s.Engine.List(context.Background(), kit.DemoAPI, "customers", engine.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page.Records {
		if extra, ok := r["ExtraFields"].(map[string]string); !ok || len(extra) != len(want) {
			t.Errorf("customer %v: ExtraFields %#v; want each of the %d keys", r["Nr"], r["ExtraFields"], len(want))
		}
	}
	contacts, err := s.Engine.List(context.Background(), kit.DemoAPI, "contacts", engine.Query{Limit: 1})
	if err != nil || len(contacts.Records) == 0 {
		t.Fatalf("List contacts: %v", err)
	}
	if v, has := contacts.Records[0]["ExtraFields"]; has {
		t.Errorf("a contact carries ExtraFields %#v; contacts have none", v)
	}
}

// testExtraFieldDefs: the company's extra-field definitions, with which
// the API may write, and the company's labels of standard fields, in its
// own language; a register without extra fields has no definitions.
func testExtraFieldDefs(t *testing.T, s *suite) {
	s.Demo(t, "customers", "contacts", "tasks")
	ctx := context.Background()
	defs, err := s.Engine.ExtraFieldDefs(ctx, kit.DemoAPI, "customers")
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]engine.ExtraFieldDef{}
	for _, d := range defs {
		byKey[d.Key] = d
	}
	if want := (engine.ExtraFieldDef{Key: "Service.Level", Name: "Servicenivå", Category: "Service", Type: "Combo", Writable: true, Options: []string{"Bronze", "Silver", "Gold"}}); !reflect.DeepEqual(byKey["Service.Level"], want) {
		t.Errorf("Service.Level = %+v; want %+v", byKey["Service.Level"], want)
	}
	if d := byKey["Credit.Rating"]; d.Writable || !d.ReadOnly {
		t.Errorf("Credit.Rating = %+v; want read only, not writable", d)
	}
	if d := byKey["Display_Name"]; !d.Computed || d.Writable {
		t.Errorf("Display_Name = %+v; want computed, not writable", d)
	}
	if d := byKey["contract_end"]; d.Type != "Date" {
		t.Errorf("contract_end = %+v; want type Date", d)
	}
	if _, err := s.Engine.ExtraFieldDefs(ctx, kit.DemoAPI, "contacts"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("ExtraFieldDefs of contacts: %v; want engine.ErrNotFound (contacts have no extra fields)", err)
	}

	labels := func(sess engine.Session) ([]engine.FieldName, map[string]string) {
		t.Helper()
		names, err := s.Engine.FieldNames(ctx, sess)
		if err != nil {
			t.Fatalf("FieldNames of %s: %v", sess.Company, err)
		}
		byName := map[string]string{}
		for _, n := range names {
			byName[n.DbFieldName] = n.UserFieldName
		}
		return names, byName
	}
	_, demoLabels := labels(kit.DemoAPI)
	if demoLabels["CustomerCustom1"] != "Kundgrupp" || demoLabels["TaskCustomT1"] != "Arbetsorder" {
		t.Errorf("demo's labels: CustomerCustom1 %q, TaskCustomT1 %q; want Kundgrupp and Arbetsorder", demoLabels["CustomerCustom1"], demoLabels["TaskCustomT1"])
	}
	names2, _ := labels(kit.Demo2API)
	if len(names2) == 0 || names2[0].UserFieldName != "Kundegruppe" {
		t.Errorf("demo2's first label = %+v; want Kundegruppe, in Norwegian", names2)
	}
}

// testComputedInCreateAnswer: a create's answer carries its computed extra
// fields as a Get reads them right after, with or without lines, also when
// a rule changed the record once it was stored (a task created with a
// status moves to it by the transition rules after its insert).
func testComputedInCreateAnswer(t *testing.T, s *suite) {
	computedTaskField(t, s, "Status_Label", `'Status ' || COALESCE("status", '')`,
		"tasks.Status", "tasks.CustomerNr", "tasks.TaskText", "tasks/materials", "materials.ProductNr")
	for _, c := range []struct {
		name, status, want string
		lines              bool
	}{
		{"default status", "", "Status Planned", false},
		{"default status, with a line", "", "Status Planned", true},
		{"status moved after the insert", "Sent", "Status Sent", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := kit.Values(map[string]any{"CustomerNr": "1001", "TaskText": c.name})
			if c.status != "" {
				in.Values["Status"] = c.status
			}
			if c.lines {
				in.AddLine("materials", kit.Values(map[string]any{"ProductNr": "4001", "Quantity": 1.0}))
			}
			rec := s.MustCreateIn(t, kit.DemoAPI, "tasks", in)
			answer, _ := rec["ExtraFields"].(map[string]string)
			if answer["Status_Label"] != c.want {
				t.Errorf("the create's answer: Status_Label %q, want %q", answer["Status_Label"], c.want)
			}
			got := s.Get(t, kit.DemoAPI, "tasks", kit.KeyIn(t, rec, "Nr"))["ExtraFields"]
			if !reflect.DeepEqual(got, rec["ExtraFields"]) {
				t.Errorf("ExtraFields: the create answered %v, a Get reads %v", rec["ExtraFields"], got)
			}
		})
	}
}

// testComputedInUpdateAnswer: an update answers with the computed extra
// fields over what it changed (an expression the write evaluates from the
// values it stored, store.ExactInGo), as a Get reads them after; and,
// when it also writes an extra field value, with that value beside them.
func testComputedInUpdateAnswer(t *testing.T, s *suite) {
	computedTaskField(t, s, "Text_Label", `'Text ' || COALESCE("task_text", '')`, "tasks.CustomerNr", "tasks.TaskText")
	created := s.MustCreateIn(t, kit.DemoAPI, "tasks", kit.Values(map[string]any{"CustomerNr": "1001", "TaskText": "before"}))
	key := kit.KeyIn(t, created, "Nr")
	for _, c := range []struct {
		name  string
		extra map[string]string
	}{
		{"the fields alone", nil},
		{"with an extra field value", map[string]string{"Visit.Type": "Repair"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := kit.Values(map[string]any{"TaskText": "after " + c.name})
			in.Extra = c.extra
			rec := s.MustUpdateIn(t, kit.DemoAPI, "tasks", key, in)
			answer, _ := rec["ExtraFields"].(map[string]string)
			if want := "Text after " + c.name; answer["Text_Label"] != want {
				t.Errorf("the update's answer: Text_Label %q, want %q", answer["Text_Label"], want)
			}
			got := s.Get(t, kit.DemoAPI, "tasks", key)["ExtraFields"]
			if !reflect.DeepEqual(got, rec["ExtraFields"]) {
				t.Errorf("ExtraFields: the update answered %v, a Get reads %v", rec["ExtraFields"], got)
			}
		})
	}
}

// testComputedReadBack: a computed extra field whose expression a write
// cannot evaluate exactly from the values it stored (a number column's
// text is SQL's: 3 is "3.0" in SQLite and "3" in PostgreSQL) is read back
// from the store, and the create's and the update's answers carry it as a
// Get reads it. (The two tests before use expressions a write evaluates
// itself, store.ExactInGo.)
func testComputedReadBack(t *testing.T, s *suite) {
	computedTaskField(t, s, "Estimate", `'est ' || "estimated_time"`, "tasks.CustomerNr", "tasks.EstimatedTime")
	created := s.MustCreateIn(t, kit.DemoAPI, "tasks", kit.Values(map[string]any{"CustomerNr": "1001", "EstimatedTime": 3.0}))
	key := kit.KeyIn(t, created, "Nr")
	check := func(doing string, answered engine.Record) {
		t.Helper()
		got := s.Get(t, kit.DemoAPI, "tasks", key)["ExtraFields"]
		if fields, _ := got.(map[string]string); !strings.HasPrefix(fields["Estimate"], "est ") || !reflect.DeepEqual(got, answered["ExtraFields"]) {
			t.Errorf("ExtraFields: %s answered %v, a Get reads %v; want the same, with Estimate", doing, answered["ExtraFields"], got)
		}
	}
	check("the create", created)
	check("the update", s.MustUpdateIn(t, kit.DemoAPI, "tasks", key, kit.Values(map[string]any{"EstimatedTime": 4.0})))
}

// computedTaskField loads the demo data the test needs (demo's fields)
// and defines a computed extra field of tasks, key, as the SQL expr.
func computedTaskField(t *testing.T, s *suite, key, expr string, demo ...string) {
	t.Helper()
	if err := s.Demo(t, demo...).Import(context.Background(), dataset.Company{ID: kit.DemoAPI.Company, Batches: []dataset.Batch{{
		Name: "enginetest: the computed field " + key,
		ExtraFieldDefs: []dataset.ExtraFieldDef{{Register: "tasks", Key: key, Name: key, Category: "Test",
			Type: "Sql", SQLExpr: expr}},
	}}}); err != nil {
		t.Fatal(err)
	}
}
