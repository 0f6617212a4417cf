package goclient

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"fieldapi/codegen/model"
	"fieldapi/engine"
)

// The client's side of fields= and expand= (client/shape.go): a typed
// name per expansion, the expanded records as fields of the record, and
// Fields and Expand in a list's parameters.

// expansionType is the Go type of a register's expansion names: TaskExpansion.
func expansionType(r *model.Register) string { return r.RecordType + "Expansion" }

// clientExpansions emits the typed names of a register's expansions:
//
//	// TaskExpansion names a relation Tasks.List and Tasks.Get may expand.
//	type TaskExpansion string
//
//	const (
//		TaskExpandCustomer TaskExpansion = "Customer" // the Customer CustomerNr names, or null
//	)
func clientExpansions(f *jen.File, r *clientRegister) {
	if len(r.Expansions) == 0 {
		return
	}
	typ := expansionType(r.Register)
	f.Comment(fmt.Sprintf("%s names a relation %s.List and %s.Get may expand (Expand, WithExpand).", typ, r.Plural, r.Plural))
	f.Type().Id(typ).String()
	f.Line()
	var defs []jen.Code
	for _, x := range r.Expansions {
		defs = append(defs, jen.Id(x.Const).Id(typ).Op("=").Lit(x.Name).Comment(x.Note()))
	}
	f.Comment(fmt.Sprintf("The expansions of %s.", r.Name))
	f.Const().Defs(defs...)
	f.Line()
}

// clientExpansionFields are the record's fields of its expansions, set
// only when a read asks for them.
func clientExpansionFields(r *clientRegister) []jen.Code {
	var fields []jen.Code
	for _, x := range r.Expansions {
		doc := "with " + x.Const + ": " + x.Note()
		if x.Lines() {
			fields = append(fields, jen.Id(x.Name).Index().Id(x.Of.RecordType).Tag(map[string]string{"json": x.Name + ",omitempty"}).Comment(doc))
			continue
		}
		fields = append(fields, jen.Id(x.Name).Op("*").Id(x.Of.RecordType).Tag(map[string]string{"json": x.Name + ",omitempty"}).Comment(doc))
	}
	return fields
}

// clientShapeParams are the Fields and Expand of a list's parameters and
// the lines that send them.
func clientShapeParams(r *clientRegister) (fields, send []jen.Code) {
	fields = append(fields, jen.Id("Fields").Index().String().Comment("answer with only these fields (the key always comes; Materials.ProductNr narrows a line list's lines, Customer.Name an expansion); nil: every field"))
	send = append(send, jen.Id("setList").Call(jen.Id("q"), jen.Lit(engine.FieldsParam), jen.Id("p").Dot("Fields")))
	if len(r.Expansions) > 0 {
		fields = append(fields, jen.Id("Expand").Index().Id(expansionType(r.Register)).Comment("answer each record with these related records"))
		send = append(send, jen.Id("setExpand").Call(jen.Id("q"), jen.Id("p").Dot("Expand")))
	}
	return fields, send
}
