package rules

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/catalog/catalogtest"
)

// catalogWith is the builtin catalog with edit applied to a copy of its files.
func catalogWith(t *testing.T, edit func(files map[string]string)) *catalog.Catalog {
	t.Helper()
	cat, err := catalogtest.BuiltinWith(edit)
	if err != nil {
		t.Fatal("the edited catalog does not load:", err)
	}
	return cat
}

// replace edits one file, failing the test if old is not in it.
func replace(t *testing.T, files map[string]string, name, old, new string) {
	t.Helper()
	if !strings.Contains(files[name], old) {
		t.Fatalf("%s has no %q", name, old)
	}
	files[name] = strings.Replace(files[name], old, new, 1)
}

func TestBindAcceptsTheBuiltinCatalog(t *testing.T) {
	is := is.New(t)
	cat, err := catalog.Builtin()
	is.NoErr(err)
	_, err = Bind(cat, Builtin()...)
	is.NoErr(err)
}

// TestBindRefusesACatalogTheRulesCannotRunOn: each catalog edit that would
// break a rule at run time stops Bind (and so the engine's Open) with a
// message naming the YAML file, the rule and the field.
func TestBindRefusesACatalogTheRulesCannotRunOn(t *testing.T) {
	cases := []struct {
		name string
		edit func(t *testing.T, files map[string]string)
		want string
	}{
		{
			name: "a field a rule needs is removed",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "tasks.yaml", `  - {name: AssigneeStatuses, type: object, description: "Each assignee's own status on the task, by signature."}`+"\n", "")
				replace(t, files, "tasks.yaml", `"AssigneeStatuses": {"ERJO": "Finished"}, `, "") // and from the example record
			},
			want: "catalog/tasks.yaml: the task status rules need field AssigneeStatuses (object)",
		},
		{
			name: "a field a rule needs changes type",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "products.yaml", "{name: BasePrice, type: number", "{name: BasePrice, type: text")
			},
			want: "catalog/products.yaml: the material pricing rules need field BasePrice (number), not text",
		},
		{
			name: "a value is added to a field whose values a rule knows",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "tasks.yaml", "enum: [Planned, Sent, Received, InProgress, Finished, Archived]", "enum: [Planned, Sent, Received, InProgress, Finished, Archived, Cancelled]")
			},
			want: "catalog/tasks.yaml: the task status rules need field Status to take exactly [Planned, Sent, Received, InProgress, Finished, Archived], not [Planned, Sent, Received, InProgress, Finished, Archived, Cancelled]",
		},
		{
			name: "an owner type is dropped",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "times.yaml", "enum: [task, quote, order, contract]", "enum: [task, quote, contract]")
			},
			want: "catalog/times.yaml: the times ownerType filter rules need field OwnerType to take exactly [task, quote, order, contract], not [task, quote, contract]",
		},
		{
			name: "a line list a rule prepares is renamed",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "tasks.yaml", "{name: materials, register: materials", "{name: parts, register: materials")
				replace(t, files, "tasks.yaml", "lines: {materials: [Id, ProductNr]", "lines: {parts: [Id, ProductNr]")
			},
			want: "catalog/tasks.yaml: the material pricing rules need line list materials",
		},
		{
			name: "a register with rules is renamed",
			edit: func(t *testing.T, files map[string]string) {
				files["jobs.yaml"] = strings.Replace(files["tasks.yaml"], "register: tasks", "register: jobs", 1)
				files["tasks.yaml"] = ""
			},
			want: "catalog/tasks.yaml: the task note rules need register tasks, which the catalog does not declare (renamed or removed?)",
		},
		{
			name: "a register a rule reads is removed",
			edit: func(t *testing.T, files map[string]string) {
				files["pricelists.yaml"] = ""
				for name := range files {
					files[name] = strings.ReplaceAll(files[name], ", references: pricelists", "")
				}
			},
			want: "catalog/pricelists.yaml: the material pricing rules need register pricelists, which the catalog does not declare",
		},
		{
			name: "an action without a rule",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "tasks.yaml", "  - name: notes\n", "  - name: archive\n    description: Archives.\n    fields: [{name: Reason}]\n  - name: notes\n")
			},
			want: "catalog/tasks.yaml: action archive has no rule in the engine",
		},
		{
			name: "a rule's action the catalog dropped",
			edit: func(t *testing.T, files map[string]string) {
				replace(t, files, "tasks.yaml", "  - name: notes\n    event: note_added       # task.note_added\n    log: note               # its entries in the task's change log: GET /v1/tasks/{nr}/notes lists them\n    description: Adds an entry to the task's log.\n    fields: [{name: Text, required: true}]\n", "")
			},
			want: "catalog/tasks.yaml: the task note rules carry out action notes, which the catalog does not declare",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			cat := catalogWith(t, func(files map[string]string) { tc.edit(t, files) })
			_, err := Bind(cat, Builtin()...)
			is.True(err != nil)
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %q, want it to contain %q", err, tc.want)
			}
		})
	}
}
