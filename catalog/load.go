package catalog

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"fieldapi/engine"

	"gopkg.in/yaml.v3"
)

// The catalog files of a directory, as glob patterns: every register file
// at its root, and the field sets registers may use.
const (
	RegisterFiles = "*.yaml"
	FieldSetFiles = "fieldsets/*.yaml"
)

//go:embed *.yaml fieldsets/*.yaml
var builtin embed.FS

// Builtin loads the catalog shipped in this package.
func Builtin() (*Catalog, error) { return LoadFS(builtin) }

// BuiltinFS is the files of the catalog shipped in this package.
func BuiltinFS() fs.FS { return builtin }

// LoadDir loads the catalog of a directory: every *.yaml file is a register,
// every fieldsets/*.yaml file a field set.
func LoadDir(dir string) (*Catalog, error) { return LoadFS(os.DirFS(dir)) }

// LoadFS loads and validates the register files (*.yaml at the root of fsys)
// and the field sets they use (fieldsets/*.yaml).
func LoadFS(fsys fs.FS) (*Catalog, error) {
	sets, err := readFieldSets(fsys)
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(fsys, RegisterFiles)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	rv := &resolver{sources: map[string]*source{}, sets: sets}
	for _, name := range names {
		src := &source{file: name}
		if src.doc, err = decodeFile(fsys, name, &src.decl); err != nil {
			return nil, err
		}
		rv.sources[strings.TrimSuffix(name, ".yaml")] = src
	}
	c := &Catalog{}
	for _, name := range names {
		r, err := rv.register(strings.TrimSuffix(name, ".yaml"))
		if err != nil {
			return nil, err
		}
		c.Registers = append(c.Registers, r)
	}
	if len(c.Registers) == 0 {
		return nil, fmt.Errorf("catalog: no *.yaml register files found")
	}
	sort.Slice(c.Registers, func(i, j int) bool { return c.Registers[i].Name < c.Registers[j].Name })
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		if err := sets[name].validate(c); err != nil {
			return nil, err
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeFile decodes one catalog file into v strictly (an unknown YAML key
// is an error) and returns its top-level mapping.
func decodeFile(fsys fs.FS, name string, v any) (*yaml.Node, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", name, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("catalog/%s: the file is empty", name)
		}
		var typeErr *yaml.TypeError
		if errors.As(err, &typeErr) {
			return nil, fmt.Errorf("catalog/%s: %s", name, plainTypeErrors(typeErr))
		}
		return nil, fmt.Errorf("catalog/%s: %w", name, err)
	}
	return doc.Content[0], nil
}

// unknownKey is yaml.v3's message for a key no Go field takes; it names
// the loader's internal type, which means nothing to a catalog author.
var unknownKey = regexp.MustCompile(`^(line \d+: )field (.+) not found in type \S+$`)

// plainTypeErrors words the decoding errors of one file for its author:
// "line 6: unknown key "colour"" rather than the Go type that refused it.
func plainTypeErrors(err *yaml.TypeError) string {
	msgs := make([]string, len(err.Errors))
	for i, msg := range err.Errors {
		msgs[i] = unknownKey.ReplaceAllString(msg, `${1}unknown key "${2}"`)
	}
	return strings.Join(msgs, "; ")
}

// checkEntries refuses an empty entry ("-" alone) of a list, which YAML
// decodes to nil.
func (r *Register) checkEntries() error {
	for _, list := range []struct {
		key string
		at  int
	}{
		{"fields", slices.Index(r.Fields, nil)},
		{"filters", slices.Index(r.Filters, nil)},
		{"lines", slices.Index(r.Lines, nil)},
		{"actions", slices.Index(r.Actions, nil)},
	} {
		if list.at >= 0 {
			return fmt.Errorf("%s[%d]: empty entry", list.key, list.at)
		}
	}
	for i, a := range r.Actions {
		if j := slices.Index(a.Fields, nil); j >= 0 {
			return fmt.Errorf("actions[%d]: fields[%d]: empty entry", i, j)
		}
	}
	return nil
}

// complete fills in defaults and every derived name.
func (r *Register) complete() {
	r.ReadScope = r.Name + ":read"
	r.WriteScope = r.Name + ":write"
	for _, f := range r.Fields {
		f.complete()
	}
	for _, fl := range r.Filters {
		if fl.Match == "" {
			fl.Match = Equals
		}
	}
	for _, l := range r.Lines {
		if l.Name != "" { // validate refuses an empty name
			l.ReadName = strings.ToUpper(l.Name[:1]) + l.Name[1:]
		}
	}
	for _, a := range r.Actions {
		for _, f := range a.Fields {
			f.Writable = true
			f.complete()
		}
		if a.Event == "" {
			a.Event = Column(a.Name)
		}
	}
}

// complete fills in a field's default type and its derived names.
func (f *Field) complete() {
	if f.Type == "" {
		f.Type = Text
	}
	f.WriteName = WriteName(f.Name)
	f.Column = Column(f.Name)
}

var (
	registerName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	goName       = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	paramName    = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
)

// reservedFields are added by the service to every record it reads.
var reservedFields = []string{"Modified", "ExtraFields"}

// validate checks every register. Their names are unique: each must be
// the name of its file.
func (c *Catalog) validate() error {
	for _, r := range c.Registers {
		if err := r.validate(c); err != nil {
			return fmt.Errorf("catalog/%s: %w", r.File, err)
		}
	}
	return nil
}

func (r *Register) validate(c *Catalog) error {
	if !registerName.MatchString(r.Name) {
		return fmt.Errorf("register: %q must be lower-case letters and digits", r.Name)
	}
	if want := r.Name + ".yaml"; r.File != want {
		return fmt.Errorf("register %q must be declared in %s", r.Name, want)
	}
	if !goName.MatchString(r.Record) {
		return fmt.Errorf("record: %q must be a PascalCase Go name", r.Record)
	}
	fields, err := checkFields(r.Fields, c)
	if err != nil {
		return err
	}
	if err := r.validateEvolution(fields); err != nil {
		return err
	}
	key := fields[r.Key]
	if key == nil {
		return fmt.Errorf("key: field %q is not declared", r.Key)
	}
	if key.Type != Text {
		return fmt.Errorf("key: field %s must be text", r.Key)
	}
	if r.NumberSeries && !key.Writable && !key.CreateOnly {
		return fmt.Errorf("numberSeries: key %s must be writable (an omitted key is numbered)", r.Key)
	}
	if key.LookupKey {
		return fmt.Errorf("field %s: the key is a key already; lookupKey: true marks a second one", r.Key)
	}
	if err := r.validateRowNumber(key); err != nil {
		return err
	}
	for _, m := range r.Methods {
		if m != Create && m != Update {
			return fmt.Errorf("methods: unknown method %q (want create or update)", m)
		}
	}
	for name := range r.Defaults {
		if fields[name] == nil {
			return fmt.Errorf("defaults: field %q is not declared", name)
		}
	}
	for name := range r.Example {
		if fields[name] == nil && !slices.Contains(reservedFields, name) {
			return fmt.Errorf("example: field %q is not declared", name)
		}
	}
	for _, name := range r.RequireOneOf {
		if fields[name] == nil {
			return fmt.Errorf("requireOneOf: field %q is not declared", name)
		}
	}
	params := map[string]bool{}
	for _, name := range engine.ListParams() {
		params[name] = true
	}
	for i, fl := range r.Filters {
		if !paramName.MatchString(fl.Param) {
			return fmt.Errorf("filters[%d]: param %q must be camelCase", i, fl.Param)
		}
		if params[fl.Param] {
			return fmt.Errorf("filter %s: parameter name is taken", fl.Param)
		}
		params[fl.Param] = true
		f := fields[fl.Field]
		if f == nil {
			return fmt.Errorf("filter %s: field %q is not declared", fl.Param, fl.Field)
		}
		if !slices.Contains(matches, fl.Match) {
			return fmt.Errorf("filter %s: unknown match %q (want one of %s)", fl.Param, fl.Match, join(matches))
		}
		if fl.Match == Contains && f.Type != Text {
			return fmt.Errorf("filter %s: contains needs a text field, %s is %s", fl.Param, f.Name, f.Type)
		}
		if fl.Match == Hides && len(fl.Values) == 0 {
			return fmt.Errorf("filter %s: hides needs values", fl.Param)
		}
		if fl.Negate && f.Type != Bool {
			return fmt.Errorf("filter %s: negate needs a bool field", fl.Param)
		}
	}
	if err := r.validateListQuery(fields); err != nil {
		return err
	}
	lines := map[string]bool{}
	for i, l := range r.Lines {
		if !paramName.MatchString(l.Name) {
			return fmt.Errorf("lines[%d]: name %q must be camelCase", i, l.Name)
		}
		if lines[l.Name] || fields[strings.ToUpper(l.Name[:1])+l.Name[1:]] != nil {
			return fmt.Errorf("line %s: name is already used", l.Name)
		}
		lines[l.Name] = true
		lr := c.Register(l.Register)
		if lr == nil {
			return fmt.Errorf("line %s: unknown register %q", l.Name, l.Register)
		}
		if lr.Field(l.Parent) == nil {
			return fmt.Errorf("line %s: parent field %q is not declared in %s", l.Name, l.Parent, lr.File)
		}
		for name := range l.Set {
			if lr.Field(name) == nil {
				return fmt.Errorf("line %s: set field %q is not declared in %s", l.Name, name, lr.File)
			}
		}
		for _, name := range append(slices.Sorted(maps.Keys(l.Set)), l.Inherit...) {
			if f := lr.Field(name); f != nil && f.RowNumber {
				return fmt.Errorf("line %s: field %s of %s is its row number (rowNumber), which the engine assigns; set and inherit cannot give it", l.Name, name, lr.File)
			}
		}
	}
	for _, l := range r.Lines {
		lr := c.Register(l.Register)
		for _, name := range l.PostReply {
			if lr.Field(name) == nil {
				return fmt.Errorf("line %s: postReply field %q is not declared in %s", l.Name, name, lr.File)
			}
		}
		if len(l.PostReply) > 0 && !slices.Contains(l.PostReply, lr.Key) {
			return fmt.Errorf("line %s: postReply must carry the line's key %s (the Location of the line created)", l.Name, lr.Key)
		}
	}
	if err := r.validateExpansions(); err != nil {
		return err
	}
	actions := map[string]bool{"location": true, "documents": true, "changes": true}
	for i, a := range r.Actions {
		if !paramName.MatchString(a.Name) || actions[a.Name] || lines[a.Name] {
			return fmt.Errorf("actions[%d]: name %q must be a camelCase name not used by a line or another path", i, a.Name)
		}
		actions[a.Name] = true
		if !eventName.MatchString(a.Event) {
			return fmt.Errorf("action %s: event %q must be a snake_case name such as status_changed", a.Name, a.Event)
		}
		if a.Log != strings.TrimSpace(a.Log) || strings.ContainsFunc(a.Log, unicode.IsControl) {
			return fmt.Errorf("action %s: log %q must be the change-log action of its entries, such as note", a.Name, a.Log)
		}
		for j, f := range a.Fields {
			if !goName.MatchString(f.Name) || !slices.Contains(fieldTypes, f.Type) {
				return fmt.Errorf("action %s: fields[%d]: needs a PascalCase name and a known type", a.Name, j)
			}
			if f.RenamedFrom != "" {
				return fmt.Errorf("action %s: field %s: renamedFrom is for a register's stored fields; an action's body is stored nowhere", a.Name, f.Name)
			}
			if f.RowNumber {
				return fmt.Errorf("action %s: field %s: rowNumber is for a register's stored fields; an action's body is stored nowhere", a.Name, f.Name)
			}
			if len(f.Enum) > 0 && f.Type != Text {
				return fmt.Errorf("action %s: field %s: enum needs a text field", a.Name, f.Name)
			}
		}
	}
	if err := r.validateRuleKeys(c, fields); err != nil {
		return err
	}
	if rp := r.CreateReply; rp != nil {
		for _, name := range rp.Fields {
			if fields[name] == nil {
				return fmt.Errorf("createReply: field %q is not declared", name)
			}
		}
		if !slices.Contains(rp.Fields, r.Key) {
			return fmt.Errorf("createReply: fields must carry the key %s (the Location of the record created)", r.Key)
		}
		for list, names := range rp.Lines {
			var line *Line
			for _, l := range r.Lines {
				if l.Name == list {
					line = l
				}
			}
			if line == nil {
				return fmt.Errorf("createReply: %q is not a line list of this register", list)
			}
			for _, name := range names {
				if c.Register(line.Register).Field(name) == nil {
					return fmt.Errorf("createReply: line %s: field %q is not declared in %s", list, name, line.Register)
				}
			}
		}
	}
	return nil
}

// validateRowNumber checks the field declared the record's row number
// (rowNumber), if any, beyond what checkFields checks of every field: one
// per register, not the key, and no default gives it a value.
func (r *Register) validateRowNumber(key *Field) error {
	var number *Field
	for _, f := range r.Fields {
		if !f.RowNumber {
			continue
		}
		if number != nil {
			return fmt.Errorf("fields %s and %s: rowNumber: a register has one row number", number.Name, f.Name)
		}
		number = f
	}
	if number == nil {
		return nil
	}
	if number == key {
		return fmt.Errorf("field %s: rowNumber: the key cannot be the row number (a key the engine assigns is the row number already)", key.Name)
	}
	if _, defaulted := r.Defaults[number.Name]; defaulted {
		return fmt.Errorf("field %s: rowNumber: the engine assigns it; defaults cannot give it a value", number.Name)
	}
	return nil
}

// validateEvolution checks how the register says it changed: each
// renamedFrom names a field that is gone, claimed by one field only; each
// removed field is gone and is not renamed (carried over and dropped at
// once). A field of the register that still has the old name would make
// the rename take its column; fields are its current fields by name.
func (r *Register) validateEvolution(fields map[string]*Field) error {
	renamedTo := map[string]string{} // former name → the field renamed from it
	for _, f := range r.Fields {
		old := f.RenamedFrom
		if old == "" {
			continue
		}
		if fields[old] != nil {
			return fmt.Errorf("field %s: renamedFrom %s: %s is still a field of this register; a rename's former name must be gone (to keep both fields, drop renamedFrom)", f.Name, old, old)
		}
		if other, dup := renamedTo[old]; dup {
			return fmt.Errorf("field %s: renamedFrom %s: field %s is renamed from %s already; one field takes its values", f.Name, old, other, old)
		}
		if slices.Contains(reservedFields, old) {
			return fmt.Errorf("field %s: renamedFrom %s: %s is added by the service, never a field of the catalog", f.Name, old, old)
		}
		renamedTo[old] = f.Name
	}
	removed := map[string]bool{}
	for i, name := range r.RemovedFields {
		switch {
		case !goName.MatchString(name):
			return fmt.Errorf("removedFields[%d]: %q must be the removed field's PascalCase name", i, name)
		case slices.Contains(reservedFields, name):
			return fmt.Errorf("removedFields: %s is added by the service, never a field of the catalog", name)
		case fields[name] != nil:
			return fmt.Errorf("removedFields: %s is still a field of this register; delete it from fields too (removedFields drops its column and its values)", name)
		case renamedTo[name] != "":
			return fmt.Errorf("removedFields: %s is the renamedFrom of field %s, which keeps its values; give one of the two", name, renamedTo[name])
		case removed[name]:
			return fmt.Errorf("removedFields: %s is listed twice", name)
		}
		removed[name] = true
	}
	return nil
}

// checkFields checks the fields of a register or a field set and returns
// them by name.
func checkFields(fields []*Field, c *Catalog) (map[string]*Field, error) {
	byName := map[string]*Field{}
	for i, f := range fields {
		if !goName.MatchString(f.Name) {
			return nil, fmt.Errorf("fields[%d]: name %q must be PascalCase", i, f.Name)
		}
		if slices.Contains(reservedFields, f.Name) {
			return nil, fmt.Errorf("field %s: %s is added by the service; do not declare it", f.Name, f.Name)
		}
		if f.Use != "" {
			return nil, fmt.Errorf("field %s: use stands alone in an entry of a register's fields", f.Name)
		}
		if _, dup := byName[f.Name]; dup {
			return nil, fmt.Errorf("field %s: declared twice", f.Name)
		}
		byName[f.Name] = f
		if !slices.Contains(fieldTypes, f.Type) {
			return nil, fmt.Errorf("field %s: unknown type %q (want one of %s)", f.Name, f.Type, join(fieldTypes))
		}
		if f.Required && !(f.Writable || f.CreateOnly) {
			return nil, fmt.Errorf("field %s: required but not writable", f.Name)
		}
		if len(f.Enum) > 0 && f.Type != Text {
			return nil, fmt.Errorf("field %s: enum needs a text field, %s is %s", f.Name, f.Name, f.Type)
		}
		if f.RowNumber && (f.Type != Text || len(f.Enum) > 0 || f.References != "" || f.Lookup != "") {
			return nil, fmt.Errorf("field %s: rowNumber needs a plain text field: no enum, references or lookup", f.Name)
		}
		if f.RowNumber && (f.Writable || f.CreateOnly) {
			return nil, fmt.Errorf("field %s: rowNumber: the engine assigns it; it cannot be writable or createOnly", f.Name)
		}
		if f.RenamedFrom != "" && (!goName.MatchString(f.RenamedFrom) || f.RenamedFrom == f.Name) {
			return nil, fmt.Errorf("field %s: renamedFrom %q must be the field's former PascalCase name", f.Name, f.RenamedFrom)
		}
		if f.References != "" {
			ref := c.Register(f.References)
			if ref == nil {
				return nil, fmt.Errorf("field %s: references unknown register %q", f.Name, f.References)
			}
			if f.Type != Text && f.Type != List {
				return nil, fmt.Errorf("field %s: a reference must be text or a list of text", f.Name)
			}
		}
		if f.ReferencesBy != "" {
			if f.References == "" || f.Type != Text {
				return nil, fmt.Errorf("field %s: referencesBy names a lookup key of the register a text reference field references", f.Name)
			}
			if by := c.Register(f.References).Field(f.ReferencesBy); by == nil || !by.LookupKey {
				return nil, fmt.Errorf("field %s: referencesBy %q: %s has no lookup key %s (lookupKey: true)", f.Name, f.ReferencesBy, f.References, f.ReferencesBy)
			}
		}
	}
	for _, f := range fields {
		if f.LookupKey && (f.Type != Text || len(f.Enum) > 0) {
			return nil, fmt.Errorf("field %s: a lookup key must be text without enum", f.Name)
		}
		if f.Lookup == "" {
			continue
		}
		ref, field, ok := strings.Cut(f.Lookup, ".")
		rf := byName[ref]
		if !ok || rf == nil || rf.References == "" {
			hint := ""
			if f.Lookup == "true" {
				hint = " (a lookup key is declared lookupKey: true)"
			}
			return nil, fmt.Errorf("field %s: lookup %q must be Ref.Field where Ref is a reference field declared with it%s", f.Name, f.Lookup, hint)
		}
		if c.Register(rf.References).Field(field) == nil {
			return nil, fmt.Errorf("field %s: lookup %q: %s has no field %s", f.Name, f.Lookup, rf.References, field)
		}
	}
	return byName, nil
}

func join[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// FileFor is the catalog file that declares a register.
func FileFor(register string) string { return path.Join("catalog", register+".yaml") }
