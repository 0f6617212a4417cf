package httplayer

import (
	"github.com/dave/jennifer/jen"

	"fieldapi/codegen/model"
)

// readShapeVar emits what fields= and expand= may name on the reads of a
// register; each line list of the read shape takes its lines' names from
// their register's ReadShape (a line register's reads do not lead back to
// its owner's shape), each expansion carries the expanded register's names
// and view inline (a reference to its ReadShape could make an
// initialization cycle: task expands Project, and so on):
//
//	// taskReadShape is what fields= and expand= may name on the reads of tasks.
//	var taskReadShape = runtime.ReadShape{
//		Key:    "Nr",
//		Fields: []string{"Nr", ...},
//		Lines:  []runtime.LineList{{Name: "Materials", Key: "Id", Fields: materialReadShape.Fields}, ...},
//		Expand: []runtime.Expansion{{Name: "Customer", Scope: "customers:read", ..., JSON: customerJSON}},
//		JSON:   taskJSON,
//	}
func readShapeVar(f *jen.File, r *model.Register) {
	dict := jen.Dict{
		jen.Id("Key"):    jen.Lit(r.Key),
		jen.Id("Fields"): names(r.ReadNames()),
	}
	if len(r.ReadLines) > 0 {
		var lines []jen.Code
		for _, l := range r.ReadLines {
			lines = append(lines, jen.Values(jen.Dict{
				jen.Id("Name"):   jen.Lit(l.ReadName),
				jen.Id("Key"):    jen.Lit(l.Of.Key),
				jen.Id("Fields"): jen.Id(l.Of.ReadShapeVar).Dot("Fields"),
			}))
		}
		dict[jen.Id("Lines")] = jen.Index().Qual(runtimePkg, "LineList").Values(lines...)
	}
	dict[jen.Id("JSON")] = jen.Id(r.JSONVar)
	if len(r.Expansions) > 0 {
		var expand []jen.Code
		for _, x := range r.Expansions {
			of := x.Of
			d := jen.Dict{
				jen.Id("Name"):   jen.Lit(x.Name),
				jen.Id("Scope"):  jen.Lit(of.ReadScope),
				jen.Id("Key"):    jen.Lit(of.Key),
				jen.Id("Fields"): names(of.ReadNames()),
				jen.Id("View"): jen.Func().Params(jen.Id("rec").Qual(enginePkg, "Record")).Any().Block(
					jen.Return(jen.Id(of.ViewFunc).Call(jen.Id("rec")))),
				jen.Id("JSON"): jen.Id(of.JSONVar),
			}
			if x.Lines() {
				d[jen.Id("Lines")] = jen.True()
			}
			expand = append(expand, jen.Values(d))
		}
		dict[jen.Id("Expand")] = jen.Index().Qual(runtimePkg, "Expansion").Values(expand...)
	}
	f.Commentf("%s is what fields= and expand= may name on the reads of %s.", r.ReadShapeVar, r.Name)
	f.Var().Id(r.ReadShapeVar).Op("=").Qual(runtimePkg, "ReadShape").Values(dict)
}

// names emits a list of names, one a line.
func names(list []string) jen.Code {
	values := make([]jen.Code, len(list))
	for i, n := range list {
		values[i] = jen.Line().Lit(n)
	}
	return jen.Index().String().Values(append(values, jen.Line())...)
}

// jsonVar emits the read shape as package recordjson writes it straight
// from a record, member for member as the view (viewFunc) reads it and
// encoding/json writes the view: lists read and write a page without
// building views.
//
//	// taskJSON writes a record as json.Marshal(viewTask(rec)) does.
//	var taskJSON = &runtime.RecordJSON{Members: []runtime.JSONMember{
//		{Name: "Nr"},
//		...
//		{Kind: runtime.JSONNumber, Name: "EstimatedTime"},
//		...
//		{Kind: runtime.JSONLines, Lines: materialJSON, Name: "Materials"},
//		...
//		{Name: "Modified"},
//		{Kind: runtime.JSONObject, Name: "ExtraFields"},
//	}}
func jsonVar(f *jen.File, r *model.Register) {
	member := func(name string, kind string, lines string) jen.Code {
		d := jen.Dict{jen.Id("Name"): jen.Lit(name)}
		if kind != "JSONText" {
			d[jen.Id("Kind")] = jen.Qual(runtimePkg, kind)
		}
		if lines != "" {
			d[jen.Id("Lines")] = jen.Id(lines)
		}
		return jen.Line().Values(d)
	}
	var members []jen.Code
	for _, fd := range r.Fields {
		members = append(members, member(fd.Name, "JSON"+recordAccessor(fd.Type), ""))
	}
	for _, l := range r.ReadLines {
		members = append(members, member(l.ReadName, "JSONLines", l.Of.JSONVar))
	}
	members = append(members, member("Modified", "JSONText", ""))
	if r.ExtraFields {
		members = append(members, member("ExtraFields", "JSONObject", ""))
	}
	members = append(members, jen.Line())
	f.Commentf("%s writes a record as json.Marshal(%s(rec)) does.", r.JSONVar, r.ViewFunc)
	f.Var().Id(r.JSONVar).Op("=").Op("&").Qual(runtimePkg, "RecordJSON").Values(jen.Dict{
		jen.Id("Members"): jen.Index().Qual(runtimePkg, "JSONMember").Values(members...),
	})
}
