package model_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
)

// TestModelNames checks every name the model computes for a register.
func TestModelNames(t *testing.T) {
	is := is.New(t)
	_, parts, notes := modeltest.Parts(t)
	got := map[string]string{
		"Source": parts.Source, "OutFile": parts.OutFile, "Plural": parts.Plural,
		"RecordType": parts.RecordType, "WriteType": parts.WriteType, "ViewFunc": parts.ViewFunc,
		"FiltersVar": parts.FiltersVar, "CreateShapeVar": parts.CreateShapeVar, "UpdateShapeVar": parts.UpdateShapeVar,
		"ListFunc": parts.ListFunc, "GetFunc": parts.GetFunc, "CreateFunc": parts.CreateFunc,
		"UpdateFunc": parts.UpdateFunc, "ExtraFieldsFunc": parts.ExtraFieldsFunc, "RoutesFunc": parts.RoutesFunc,
		"CollectionPath": parts.CollectionPath, "ItemPath": parts.ItemPath, "ItemDocPath": parts.ItemDocPath,
		"Line.GoName": parts.Lines[0].GoName, "Line.ShapeVar": parts.Lines[0].ShapeVar,
	}
	want := map[string]string{
		"Source": "catalog/parts.yaml", "OutFile": "parts_gen.go", "Plural": "Parts",
		"RecordType": "Part", "WriteType": "PartWrite", "ViewFunc": "viewPart",
		"FiltersVar": "partFilters", "CreateShapeVar": "partCreateShape", "UpdateShapeVar": "partUpdateShape",
		"ListFunc": "listParts", "GetFunc": "getPart", "CreateFunc": "createPart",
		"UpdateFunc": "updatePart", "ExtraFieldsFunc": "partExtraFields", "RoutesFunc": "partRoutes",
		"CollectionPath": "/v1/parts", "ItemPath": "/v1/parts/:key", "ItemDocPath": "/v1/parts/{Nr}",
		"Line.GoName": "Notes", "Line.ShapeVar": "partNotesShape",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s = %q, want %q", name, got[name], w)
		}
	}
	is.True(parts.HasWrites && parts.HasBody)
	is.True(!notes.HasWrites && notes.HasBody) // a line register has a body type without methods
	is.Equal(parts.Lines[0].Of, notes)
	is.Equal(parts.CreateNames(), []string{"nr", "name", "price", "serial", "extraFields", "notes"})
	is.Equal(parts.UpdateNames(), []string{"nr", "name", "price", "extraFields"})
	is.Equal(parts.ReadOnlyNames(), []string{"stocked", "modified"})
	is.Equal(parts.RequiredNames(), []string{"name"})
	is.Equal(parts.Lines[0].LineNames(), []string{"text"})
}

// TestModelRoutes checks the route table of a writable register with extra
// fields and of a read-only one.
func TestModelRoutes(t *testing.T) {
	is := is.New(t)
	_, parts, notes := modeltest.Parts(t)
	is.Equal(parts.Routes, []model.RouteSpec{
		route("GET", "/v1/parts", "/v1/parts", "parts:read", "listParts", "List parts, newest first", model.KindList, "", "Part"),
		route("GET", "/v1/parts/extra-fields", "/v1/parts/extra-fields", "parts:read", "partExtraFields", "Describe the extra fields of parts", model.KindExtraFields, "", ""),
		route("GET", "/v1/parts/:key", "/v1/parts/{Nr}", "parts:read", "getPart", "Read one record of parts", model.KindGet, "", "Part"),
		route("POST", "/v1/parts", "/v1/parts", "parts:write", "createPart", "Create a record of parts", model.KindCreate, "PartCreate", "Part"),
		route("PATCH", "/v1/parts/:key", "/v1/parts/{Nr}", "parts:write", "updatePart", "Change the fields sent of a record of parts", model.KindUpdate, "PartUpdate", "Part"),
		route("PUT", "/v1/parts/:key", "/v1/parts/{Nr}", "parts:write", "upsertPart", "Create the record with this Nr, or change the fields sent of the one that has it", model.KindUpsert, "PartUpsert", "Part"),
		route("GET", "/v1/parts/:key/changes", "/v1/parts/{Nr}/changes", "parts:read", "listPartChanges", "List the record's change log, newest first", model.KindChanges, "", "ChangeList"),
	})
	is.Equal(len(notes.Routes), 2) // list and get only: no writes, no change log
}

// TestNewModelRejectsCollidingNames: the loader cannot see Go names, so the
// model refuses a catalog whose generated code would not compile, naming the
// file at fault.
func TestNewModelRejectsCollidingNames(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{
			name: "two registers with one record name",
			files: map[string]string{
				"parts.yaml":  modeltest.PartsYAML,
				"notes.yaml":  modeltest.NotesYAML,
				"spares.yaml": "register: spares\nrecord: Part\nkey: Nr\nfields:\n  - {name: Nr}\n",
			},
			want: "catalog/spares.yaml: generated name Part is already used by catalog/parts.yaml",
		},
		{
			name:  "a record named like a shared declaration",
			files: map[string]string{"routes.yaml": "register: routes\nrecord: Routes\nkey: Nr\nfields:\n  - {name: Nr}\n"},
			want:  "catalog/routes.yaml: generated name Routes is already used by api_gen.go",
		},
		{
			name: "a record named like another register's body type",
			files: map[string]string{
				"parts.yaml":     modeltest.PartsYAML,
				"notes.yaml":     modeltest.NotesYAML,
				"partwrite.yaml": "register: partwrite\nrecord: PartWrite\nkey: Nr\nfields:\n  - {name: Nr}\n",
			},
			want: "generated name PartWrite is already used by",
		},
		{
			name:  "a writable field named like a body method",
			files: map[string]string{"things.yaml": "register: things\nrecord: Thing\nkey: Nr\nmethods: [create]\nfields:\n  - {name: Nr, writable: true}\n  - {name: Input, writable: true}\n"},
			want:  "catalog/things.yaml: field Input: the name is taken by the method ThingWrite.Input",
		},
		{
			name: "two registers whose engine name constants collide",
			files: map[string]string{
				"orders.yaml":     "register: orders\nrecord: Order\nkey: Nr\nfields:\n  - {name: Nr}\n  - {name: LineNr}\n",
				"orderlines.yaml": "register: orderlines\nrecord: OrderLine\nkey: Nr\nfields:\n  - {name: Nr}\n",
			},
			want: "catalog/orders.yaml: the engine's name constant OrderLineNr is already used by catalog/orderlines.yaml",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			fsys := fstest.MapFS{}
			for name, yaml := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(yaml)}
			}
			cat, err := catalog.LoadFS(fsys)
			is.NoErr(err) // the loader accepts it
			_, err = model.New(cat)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want)) // names the file and the name
		})
	}
}

// route is a model.RouteSpec with its fields in their declared order.
func route(method, path, docPath, scope, handler, summary string, kind model.RouteKind, request, reply string) model.RouteSpec {
	return model.RouteSpec{Method: method, Path: path, DocPath: docPath, Scope: scope, Handler: handler, Summary: summary, Kind: kind, Request: request, Reply: reply}
}
