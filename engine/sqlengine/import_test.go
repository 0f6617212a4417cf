package sqlengine

import (
	"context"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
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

func TestImport(t *testing.T) {
	eachEngine(t, func(t *testing.T, e testEngine) {
		is := is.New(t)
		ctx := context.Background()
		s := engine.Session{Company: "imp", Sign: "API", ClientID: "test"}
		is.NoErr(e.Import(ctx, importCompany()))

		task, err := e.Get(ctx, s, "tasks", "500")
		is.NoErr(err)
		is.Equal(task["Id"], "imported-1")                          // a field no API call may write
		is.Equal(task["Status"], "Finished")                        // no transition from the default was checked
		is.Equal(task["CustomerName"], "As it was then")            // stored as given: no lookup resolved
		is.Equal(task.Object("ExtraFields")["Ref"], "kept")         // a read-only extra field
		is.Equal(count(t, e, "change_log", `"company" = 'imp'`), 0) // nothing logged
		is.Equal(count(t, e, "number_series", `"company" = 'imp' AND "register" = 'tasks' AND "next" = 501`), 1)

		// The API's rules still hold for the imported task: no owner, no move.
		_, err = e.Act(ctx, s, "tasks", "500", "status", input(map[string]any{"Status": "Archived"}), asJSON(zeroClaim))
		is.True(strings.Contains(commandError(t, err).Detail, "no owner"))

		// Again: the batch was imported, nothing is added.
		is.NoErr(e.Import(ctx, importCompany()))
		is.Equal(count(t, e, "tasks", `"company" = 'imp'`), 1)

		// A batch on a register the catalog lacks waits; a bad one is
		// refused whole, naming the record and field.
		waiting := dataset.Batch{Name: "test.machines", Registers: []dataset.Register{{Name: "machines", Records: []dataset.Record{{Values: map[string]any{"Nr": "1"}}}}}}
		bad := dataset.Batch{Name: "test.bad", Registers: []dataset.Register{{Name: "customers", Records: []dataset.Record{
			{Values: map[string]any{"Nr": "8", "Name": "Fine"}},
			{Values: map[string]any{"Nr": "9", "Colour": "red"}},
		}}}}
		err = e.Import(ctx, importCompany(waiting, bad))
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), `test.bad: customers[1]: customers has no field "Colour"`))
		is.Equal(count(t, e, "customers", `"company" = 'imp'`), 1)
		is.Equal(count(t, e, "settings", `"company" = 'imp' AND "name" IN ('test.machines', 'test.bad')`), 0)

		wrongType := dataset.Batch{Name: "test.type", Registers: []dataset.Register{{Name: "customers", Records: []dataset.Record{
			{Values: map[string]any{"Nr": "8", "Name": 42.0}}}}}}
		is.True(e.Import(ctx, importCompany(wrongType)) != nil)
	})
}
