package httplayer

import (
	"github.com/dave/jennifer/jen"

	"fieldapi/codegen/model"
)

// replyFields emits the camelCase fields of a reply type.
func replyFields(fields []*model.Field) []jen.Code {
	var out []jen.Code
	for _, fd := range fields {
		out = append(out, jen.Id(fd.GoName).Add(readType(fd.Type)).Tag(tag(fd.WriteName)))
	}
	return out
}

// replyStruct emits a summary a write answers with, in camelCase:
//
//	// TaskCreated is the answer to POST /v1/tasks.
//	type TaskCreated struct {
//		Nr        *string                `json:"nr"`
//		Materials []TaskCreatedMaterials `json:"materials"`
//	}
func replyStruct(f *jen.File, rp *model.Reply) {
	fields := replyFields(rp.Fields)
	for _, rl := range rp.Lines {
		fields = append(fields, jen.Id(rl.GoName).Index().Id(rl.ItemType).Tag(tag(rl.Name)))
	}
	f.Comment(rp.Type + " " + rp.Doc)
	f.Type().Id(rp.Type).Struct(fields...)
}

// replyLineStruct emits the item type of a line list in a reply:
//
//	// TaskCreatedMaterials is one of the materials in a TaskCreated.
//	type TaskCreatedMaterials struct {
//		Id        *string `json:"id"`
//		ProductNr *string `json:"productNr"`
//	}
func replyLineStruct(f *jen.File, rp *model.Reply, rl *model.ReplyLine) {
	f.Commentf("%s is one of the %s in a %s.", rl.ItemType, rl.Name, rp.Type)
	f.Type().Id(rl.ItemType).Struct(replyFields(rl.Fields)...)
}

// replyValues reads reply fields from a record named rec.
func replyValues(rec string, fields []*model.Field) []jen.Code {
	var values []jen.Code
	for _, fd := range fields {
		values = append(values, jen.Line().Id(fd.GoName).Op(":").Id(rec).Dot(recordAccessor(fd.Type)).Call(jen.Lit(fd.Name)))
	}
	return values
}

// replyViewFunc emits the mapper of a reply; line lists map item by item:
//
//	// viewTaskCreated maps the record as written to its reply.
//	func viewTaskCreated(rec engine.Record) TaskCreated {
//		reply := TaskCreated{Nr: rec.Text("Nr")}
//		for _, line := range rec.Lines("Materials") {
//			reply.Materials = append(reply.Materials, TaskCreatedMaterials{Id: line.Text("Id")})
//		}
//		return reply
//	}
func replyViewFunc(f *jen.File, rp *model.Reply) {
	values := replyValues("rec", rp.Fields)
	for _, rl := range rp.Lines {
		values = append(values, jen.Line().Id(rl.GoName).Op(":").Index().Id(rl.ItemType).Values())
	}
	body := []jen.Code{jen.Id("reply").Op(":=").Id(rp.Type).Values(append(values, jen.Line())...)}
	for _, rl := range rp.Lines {
		item := jen.Id(rl.ItemType).Values(append(replyValues("line", rl.Fields), jen.Line())...)
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("line")).Op(":=").Range().Id("rec").Dot("Lines").Call(jen.Lit(rl.ReadName))).Block(
			jen.Id("reply").Dot(rl.GoName).Op("=").Append(jen.Id("reply").Dot(rl.GoName), item),
		))
	}
	body = append(body, jen.Return(jen.Id("reply")))
	f.Commentf("%s maps the record as written to its reply.", rp.ViewFunc)
	f.Func().Id(rp.ViewFunc).Params(jen.Id("rec").Qual(enginePkg, "Record")).Id(rp.Type).Block(body...)
}

// actionShapeVar emits what an action's body accepts:
//
//	// taskStatusShape is what POST /v1/tasks/{Nr}/status accepts.
//	var taskStatusShape = runtime.Shape{Writable: []string{"status"}, ReadOnly: nil, Required: []string{"status"}}
func actionShapeVar(f *jen.File, a *model.Action) {
	var names, required []string
	for _, fd := range a.Body.Fields {
		names = append(names, fd.WriteName)
		if fd.Required {
			required = append(required, fd.WriteName)
		}
	}
	f.Commentf("%s is what POST %s accepts.", a.ShapeVar, a.DocPath)
	f.Var().Id(a.ShapeVar).Op("=").Add(shapeValue(names, nil, required))
}

// addLineHandler emits: func addTaskMaterials(c *runtime.Call) error { return runtime.AddLine[MaterialWrite](c, "tasks", "materials", taskMaterialsShape, viewMaterial) }
func addLineHandler(f *jen.File, r *model.Register, l *model.Line) {
	handlerFunc(f, l.PostFunc, "POST", l.DocPath,
		jen.Qual(runtimePkg, "AddLine").Types(jen.Id(l.Of.WriteType)).Call(jen.Id("c"), jen.Lit(r.Name), jen.Lit(l.Name), jen.Id(l.ShapeVar), jen.Id(l.PostView())))
}

// actionHandler emits: func actTaskStatus(c *runtime.Call) error { return runtime.Act[TaskStatusBody](c, "tasks", "status", taskStatusShape, viewTask) }
func actionHandler(f *jen.File, r *model.Register, a *model.Action) {
	handlerFunc(f, a.Func, "POST", a.DocPath,
		jen.Qual(runtimePkg, "Act").Types(jen.Id(a.Body.Type)).Call(jen.Id("c"), jen.Lit(r.Name), jen.Lit(a.Name), jen.Id(a.ShapeVar), jen.Id(r.ViewFunc)))
}

// actionLogHandler emits: func listTaskNotes(c *runtime.Call) error { return runtime.ActionLog(c, "tasks", "note") }
func actionLogHandler(f *jen.File, r *model.Register, a *model.Action) {
	handlerFunc(f, a.LogFunc, "GET", a.DocPath,
		jen.Qual(runtimePkg, "ActionLog").Call(jen.Id("c"), jen.Lit(r.Name), jen.Lit(a.Log)))
}

// changesHandler emits: func listCustomerChanges(c *runtime.Call) error { return runtime.Changes(c, "customers") }
func changesHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.ChangesFunc, "GET", r.ItemDocPath+"/changes", jen.Qual(runtimePkg, "Changes").Call(jen.Id("c"), jen.Lit(r.Name)))
}

// getLocationHandler emits: func getCustomerLocation(c *runtime.Call) error { return runtime.GetLocation(c, "customers") }
func getLocationHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.GetLocationFunc, "GET", r.ItemDocPath+"/location", jen.Qual(runtimePkg, "GetLocation").Call(jen.Id("c"), jen.Lit(r.Name)))
}

// pinLocationHandler emits: func pinCustomerLocation(c *runtime.Call) error { return runtime.PinLocation(c, "customers") }
func pinLocationHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.PinLocationFunc, "PUT", r.ItemDocPath+"/location", jen.Qual(runtimePkg, "PinLocation").Call(jen.Id("c"), jen.Lit(r.Name)))
}

// addDocumentHandler emits: func addTaskDocument(c *runtime.Call) error { return runtime.AddDocument(c, "tasks") }
func addDocumentHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.AddDocumentFunc, "POST", r.ItemDocPath+"/documents", jen.Qual(runtimePkg, "AddDocument").Call(jen.Id("c"), jen.Lit(r.Name)))
}

// listDocumentsHandler emits: func listTaskDocuments(c *runtime.Call) error { return runtime.ListDocuments(c, "tasks") }
func listDocumentsHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.ListDocumentsFunc, "GET", r.ItemDocPath+"/documents", jen.Qual(runtimePkg, "ListDocuments").Call(jen.Id("c"), jen.Lit(r.Name)))
}

// getDocumentHandler emits: func getTaskDocument(c *runtime.Call) error { return runtime.GetDocument(c, "tasks") }
func getDocumentHandler(f *jen.File, r *model.Register) {
	handlerFunc(f, r.GetDocumentFunc, "GET", r.ItemDocPath+"/documents/{id}", jen.Qual(runtimePkg, "GetDocument").Call(jen.Id("c"), jen.Lit(r.Name)))
}
