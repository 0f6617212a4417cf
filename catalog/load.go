package catalog

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var builtin embed.FS

// Builtin loads the catalog shipped in this package.
func Builtin() (*Catalog, error) { return LoadFS(builtin) }

// LoadDir loads every *.yaml file of a directory.
func LoadDir(dir string) (*Catalog, error) { return LoadFS(os.DirFS(dir)) }

// LoadFS loads and validates every *.yaml file at the root of fsys.
func LoadFS(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	c := &Catalog{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		r, err := parse(name, data)
		if err != nil {
			return nil, err
		}
		c.Registers = append(c.Registers, r)
	}
	if len(c.Registers) == 0 {
		return nil, fmt.Errorf("catalog: no *.yaml register files found")
	}
	sort.Slice(c.Registers, func(i, j int) bool { return c.Registers[i].Name < c.Registers[j].Name })
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// parse decodes one register file strictly: an unknown YAML key is an error.
func parse(file string, data []byte) (*Register, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	r := &Register{}
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", file, err)
	}
	r.File = file
	r.complete()
	return r, nil
}

// complete fills in defaults and every derived name.
func (r *Register) complete() {
	r.ReadScope = r.Name + ":read"
	r.WriteScope = r.Name + ":write"
	for _, f := range r.Fields {
		if f.Type == "" {
			f.Type = Text
		}
		f.WriteName = WriteName(f.Name)
		f.Column = Column(f.Name)
	}
	for _, fl := range r.Filters {
		if fl.Match == "" {
			fl.Match = Equals
		}
	}
	for _, l := range r.Lines {
		l.ReadName = strings.ToUpper(l.Name[:1]) + l.Name[1:]
	}
	for _, a := range r.Actions {
		for _, f := range a.Fields {
			if f.Type == "" {
				f.Type = Text
			}
			f.Writable = true
			f.WriteName = WriteName(f.Name)
			f.Column = Column(f.Name)
		}
	}
}

var (
	registerName = regexp.MustCompile(`^[a-z][a-z0-9]*$`)
	goName       = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	paramName    = regexp.MustCompile(`^[a-z][A-Za-z0-9]*$`)
)

// reservedFields are added by the service to every record it reads.
var reservedFields = []string{"Modified", "ExtraFields"}

func (c *Catalog) validate() error {
	seen := map[string]string{}
	for _, r := range c.Registers {
		if prev, dup := seen[r.Name]; dup {
			return fmt.Errorf("catalog/%s: register %q is already declared in %s", r.File, r.Name, prev)
		}
		seen[r.Name] = r.File
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
	fields := map[string]*Field{}
	for i, f := range r.Fields {
		if !goName.MatchString(f.Name) {
			return fmt.Errorf("fields[%d]: name %q must be PascalCase", i, f.Name)
		}
		if slices.Contains(reservedFields, f.Name) {
			return fmt.Errorf("field %s: %s is added by the service; do not declare it", f.Name, f.Name)
		}
		if _, dup := fields[f.Name]; dup {
			return fmt.Errorf("field %s: declared twice", f.Name)
		}
		fields[f.Name] = f
		if !slices.Contains(fieldTypes, f.Type) {
			return fmt.Errorf("field %s: unknown type %q (want one of %s)", f.Name, f.Type, join(fieldTypes))
		}
		if f.Required && !(f.Writable || f.CreateOnly) {
			return fmt.Errorf("field %s: required but not writable", f.Name)
		}
		if len(f.Enum) > 0 && f.Type != Text {
			return fmt.Errorf("field %s: enum needs a text field, %s is %s", f.Name, f.Name, f.Type)
		}
		if f.References != "" {
			ref := c.Register(f.References)
			if ref == nil {
				return fmt.Errorf("field %s: references unknown register %q", f.Name, f.References)
			}
			if f.Type != Text && f.Type != List {
				return fmt.Errorf("field %s: a reference must be text or a list of text", f.Name)
			}
		}
	}
	for _, f := range r.Fields {
		if f.Lookup == "" {
			continue
		}
		ref, field, ok := strings.Cut(f.Lookup, ".")
		rf := fields[ref]
		if !ok || rf == nil || rf.References == "" {
			return fmt.Errorf("field %s: lookup %q must be Ref.Field where Ref is a reference field of this register", f.Name, f.Lookup)
		}
		if c.Register(rf.References).Field(field) == nil {
			return fmt.Errorf("field %s: lookup %q: %s has no field %s", f.Name, f.Lookup, rf.References, field)
		}
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
	params := map[string]bool{"limit": true, "page": true, "cursor": true, "modifiedSince": true, "modifiedBefore": true}
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
	actions := map[string]bool{"location": true, "documents": true}
	for i, a := range r.Actions {
		if !paramName.MatchString(a.Name) || actions[a.Name] || lines[a.Name] {
			return fmt.Errorf("actions[%d]: name %q must be a camelCase name not used by a line or another path", i, a.Name)
		}
		actions[a.Name] = true
		for j, f := range a.Fields {
			if !goName.MatchString(f.Name) || !slices.Contains(fieldTypes, f.Type) {
				return fmt.Errorf("action %s: fields[%d]: needs a PascalCase name and a known type", a.Name, j)
			}
			if len(f.Enum) > 0 && f.Type != Text {
				return fmt.Errorf("action %s: field %s: enum needs a text field", a.Name, f.Name)
			}
		}
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

func join[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}

// FileFor is the catalog file that declares a register.
func FileFor(register string) string { return path.Join("catalog", register+".yaml") }
