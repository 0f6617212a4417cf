package model

import (
	"slices"
	"strings"

	"fieldapi/catalog"
)

// Examples for the OpenAPI document and the reference page, drawn from the
// catalog's example (one demo record per register).

// The demo key the examples are made with (make run's): client id
// demo-cli, signature API.
const (
	ExampleClientID = "demo-cli"
	ExampleSign     = "API"
)

// ReadExample is the catalog's example as the record is read: every field
// of the read shape, null where the example has no value; nil when the
// catalog gives no example.
func (r *Register) ReadExample() map[string]any {
	if r.Example == nil {
		return nil
	}
	out := map[string]any{}
	for _, f := range r.Fields {
		out[f.Name] = readValue(f.Field, r.Example[f.Name])
	}
	out["Modified"] = r.Example["Modified"]
	if r.ExtraFields {
		out["ExtraFields"] = objectOrEmpty(r.Example["ExtraFields"])
	}
	for _, l := range r.ReadLines {
		lines := []any{}
		if ex := l.Of.ReadExample(); ex != nil {
			// The line as this record's: its parent key and the fields the owner sets.
			ex[l.Parent] = r.Example[r.Key]
			for name, v := range l.Set {
				ex[name] = v
			}
			lines = append(lines, ex)
		}
		out[l.ReadName] = lines
	}
	return out
}

// readValue is an example value as read: lists and objects are never null.
func readValue(f *catalog.Field, v any) any {
	switch {
	case v != nil:
		return v
	case f.Type == catalog.List:
		return []any{}
	case f.Type == catalog.Object:
		return map[string]any{}
	}
	return nil
}

func objectOrEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// CreateExample is a body for POST /v1/<register>: the example's values of
// the fields a create accepts, in camelCase, with one line per line list
// whose register has an example. A numbered key is left out, as a client
// normally lets the number series assign it.
func (r *Register) CreateExample() map[string]any {
	if r.Example == nil {
		return nil
	}
	out := writeExample(r, func(f *Field) bool { return !(r.NumberSeries && f.Name == r.Key) })
	for _, l := range r.Lines {
		if item := l.ItemExample(); item != nil {
			out[l.Name] = []any{item}
		}
	}
	return out
}

// UpdateExample is a body for PATCH: the example's values of two writable
// fields, so it reads as a change rather than a copy of the record.
func (r *Register) UpdateExample() map[string]any {
	if r.Example == nil {
		return nil
	}
	n := 0
	return writeExample(r, func(f *Field) bool {
		if f.CreateOnly || n == 2 || r.Example[f.Name] == nil {
			return false
		}
		n++
		return true
	})
}

// ItemExample is one line of the list, as nested in its owner's create or
// posted alone: the line register's example less the parent key and the
// fields the owner sets.
func (l *Line) ItemExample() map[string]any {
	if l.Of.Example == nil {
		return nil
	}
	names := l.LineNames()
	return writeExample(l.Of, func(f *Field) bool { return slices.Contains(names, f.WriteName) })
}

// writeExample is the example's non-null values of the body fields keep
// accepts, by camelCase name.
func writeExample(r *Register, keep func(*Field) bool) map[string]any {
	out := map[string]any{}
	for _, f := range r.BodyFields() {
		v := r.Example[f.Name]
		if v == nil || !keep(f) {
			continue
		}
		out[f.WriteName] = v
	}
	return out
}

// Example is the reply drawn from the catalog's examples: the owner's
// example values of the reply's fields in camelCase (null where the example
// has none), and one line per line list whose register has an example; nil
// when the owner has no example.
func (rp *Reply) Example() map[string]any {
	if rp.Owner.Example == nil {
		return nil
	}
	out := exampleValues(rp.Owner, rp.Fields)
	for _, rl := range rp.Lines {
		lines := []any{}
		if rl.Of.Example != nil {
			lines = append(lines, exampleValues(rl.Of, rl.Fields))
		}
		out[rl.Name] = lines
	}
	return out
}

func exampleValues(r *Register, fields []*Field) map[string]any {
	out := map[string]any{}
	for _, f := range fields {
		out[f.WriteName] = readValue(f.Field, r.Example[f.Name])
	}
	return out
}

// ActionExample is a body for one of r's actions: each body field takes the
// register example's value of the field of the same name, or the first of
// its allowed values (when the example's is not one of them). nil when a required field has neither, or r has no
// example: no example is better than one the server refuses.
func (r *Register) ActionExample(a *Action) map[string]any {
	if r.Example == nil {
		return nil
	}
	out := map[string]any{}
	for _, f := range a.Body.Fields {
		v := r.Example[f.Name]
		if s, _ := v.(string); len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
			v = f.Enum[0]
		}
		switch {
		case v != nil:
			out[f.WriteName] = v
		case f.Required:
			return nil
		}
	}
	return out
}

// ChangesExample is GET …/{key}/changes of the example record: the entry
// its update example leaves (the fields sent, by their PascalCase names,
// as the engine writes them), or, without one, its create example's;
// newest first in the list envelope. nil without an example (or one
// without Modified, the entry's time).
func (r *Register) ChangesExample() map[string]any {
	at, _ := r.Example["Modified"].(string)
	if at == "" {
		return nil
	}
	action, body := "update", r.UpdateExample()
	if !r.Has(catalog.Update) || len(body) == 0 {
		action, body = "create", r.CreateExample()
	}
	if len(body) == 0 {
		return nil
	}
	var sent []string
	for _, f := range r.BodyFields() {
		if _, ok := body[f.WriteName]; ok {
			sent = append(sent, f.Name)
		}
	}
	entry := map[string]any{"At": at, "Action": action, "Detail": strings.Join(sent, ", "),
		"Sign": ExampleSign, "ClientId": ExampleClientID, "ViaApi": true}
	return map[string]any{"items": []any{entry}, "count": 1}
}
