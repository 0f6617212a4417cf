package catalog

// Reuse between catalog files. A register file may start from another
// register (extends, changing some of its fields under override) and may
// take a named list of fields from a field set (catalog/fieldsets/*.yaml,
// placed by a {use: <set>} entry of its fields). Both are resolved on the
// YAML trees before the register is decoded, so everything after the loader
// (the generator, the engine) sees plain registers.
//
// Resolving on the YAML rather than on decoded structs keeps one rule for
// every key, present and future: a key the file gives replaces the base's
// value whole, and an override entry replaces the keys it gives of one field.

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// registerFile is everything a register file may say: the register, and
// the keys of reuse that the loader resolves away.
type registerFile struct {
	Register `yaml:",inline"`
	Extends  string   `yaml:"extends"`  // register this file starts from
	Override []*Field `yaml:"override"` // fields of that register changed here; only the keys given change
}

// notInherited are the keys that name a register: an extending file gives
// its own (a missing description stays empty rather than borrowing the base's).
var notInherited = []string{"register", "record", "description"}

// fieldSet is a named list of fields several registers share, declared in
// catalog/fieldsets/<name>.yaml.
type fieldSet struct {
	File        string   `yaml:"-"`           // fieldsets/<name>.yaml
	Name        string   `yaml:"fieldset"`    // the name a {use: <name>} entry gives
	Description string   `yaml:"description"` // what the fields are for
	Fields      []*Field `yaml:"fields"`

	entries []*yaml.Node // the fields as written, put in place of each {use: <name>}
}

// source is one register file as read: its strict decoding, used for its
// keys of reuse, and its YAML tree, which resolving merges.
type source struct {
	file string
	decl registerFile
	doc  *yaml.Node // the top-level mapping
}

// readFieldSets reads every catalog/fieldsets/*.yaml file, by set name.
func readFieldSets(fsys fs.FS) (map[string]*fieldSet, error) {
	names, err := fs.Glob(fsys, FieldSetFiles)
	if err != nil {
		return nil, err
	}
	sets := map[string]*fieldSet{}
	for _, name := range names {
		s := &fieldSet{File: name}
		doc, err := decodeFile(fsys, name, s)
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(path.Base(name), ".yaml"); s.Name != want {
			return nil, fmt.Errorf("catalog/%s: fieldset: %q must be the file's name, %s", name, s.Name, want)
		}
		if i := slices.Index(s.Fields, nil); i >= 0 {
			return nil, fmt.Errorf("catalog/%s: fields[%d]: empty entry", name, i)
		}
		for i, f := range s.Fields {
			if f.Use != "" {
				return nil, fmt.Errorf("catalog/%s: fields[%d]: a field set cannot use another (%s)", name, i, f.Use)
			}
			f.complete()
		}
		if v := value(doc, "fields"); v != nil {
			s.entries = v.Content
		}
		sets[s.Name] = s
	}
	return sets, nil
}

// validate checks a field set's fields as a register's would be, so a
// mistake is reported in the set's file. A lookup must go through a
// reference field of the set itself, so the set stands on its own.
func (s *fieldSet) validate(c *Catalog) error {
	if _, err := checkFields(s.Fields, c); err != nil {
		return fmt.Errorf("catalog/%s: %w", s.File, err)
	}
	return nil
}

// resolver turns register files into registers, applying extends and use.
type resolver struct {
	sources map[string]*source // by register name, which is the file's name
	sets    map[string]*fieldSet
}

// register returns the register declared in the file of that name.
func (rv *resolver) register(name string) (*Register, error) {
	doc, err := rv.resolve(name, nil)
	if err != nil {
		return nil, err
	}
	r := &Register{}
	if err := doc.Decode(r); err != nil { // every piece was decoded strictly when read
		return nil, fmt.Errorf("catalog/%s: %w", rv.sources[name].file, err)
	}
	r.File = rv.sources[name].file
	if err := r.checkEntries(); err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", r.File, err)
	}
	r.complete()
	return r, nil
}

// resolve returns the YAML mapping of a register file with its base and
// field sets merged in and the keys of reuse removed. chain holds the files
// extending this one, to refuse a cycle.
func (rv *resolver) resolve(name string, chain []string) (*yaml.Node, error) {
	src := rv.sources[name]
	own, err := rv.withSets(src)
	if err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", src.file, err)
	}
	base := src.decl.Extends
	if base == "" {
		if len(src.decl.Override) > 0 {
			return nil, fmt.Errorf("catalog/%s: override: changes the fields of a base; give extends", src.file)
		}
		return own, nil
	}
	chain = append(chain, name)
	if slices.Contains(chain, base) {
		return nil, fmt.Errorf("catalog/%s: extends: %s is a cycle", src.file, strings.Join(append(chain, base), " → "))
	}
	if rv.sources[base] == nil {
		return nil, fmt.Errorf("catalog/%s: extends: unknown register %q", src.file, base)
	}
	inherited, err := rv.resolve(base, chain)
	if err != nil {
		return nil, err
	}
	merged, err := extend(inherited, own, src, rv.sources[base].file)
	if err != nil {
		return nil, fmt.Errorf("catalog/%s: %w", src.file, err)
	}
	return merged, nil
}

// withSets returns a file's own mapping without the keys of reuse, each
// {use: <set>} entry of its fields replaced by the set's fields.
func (rv *resolver) withSets(src *source) (*yaml.Node, error) {
	own := without(src.doc, "extends", "override")
	fields := value(own, "fields")
	if fields == nil {
		return own, nil
	}
	expanded := &yaml.Node{Kind: yaml.SequenceNode, Tag: fields.Tag}
	for i, entry := range fields.Content {
		use := value(entry, "use")
		if use == nil {
			expanded.Content = append(expanded.Content, entry)
			continue
		}
		if len(entry.Content) != 2 {
			return nil, fmt.Errorf("fields[%d]: use stands alone: the set's fields are taken as the set declares them", i)
		}
		set := rv.sets[use.Value]
		if set == nil {
			return nil, fmt.Errorf("fields[%d]: unknown field set %q (no catalog/fieldsets/%s.yaml)", i, use.Value, use.Value)
		}
		expanded.Content = append(expanded.Content, set.entries...)
	}
	return with(own, "fields", expanded), nil
}

// extend merges a file's own mapping over its resolved base: every key the
// file gives replaces the base's (register, record and description are never
// inherited); the fields are the base's, changed by override, then the
// file's own.
func extend(base, own *yaml.Node, src *source, baseFile string) (*yaml.Node, error) {
	merged := without(base, slices.Concat(notInherited, []string{"fields"})...)
	for i := 0; i < len(own.Content); i += 2 {
		if key := own.Content[i].Value; key != "fields" {
			merged = with(merged, key, own.Content[i+1])
		}
	}

	fields := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	declared := map[string]int{} // field name → index in fields
	if v := value(base, "fields"); v != nil {
		for _, entry := range v.Content {
			declared[fieldName(entry)] = len(fields.Content)
			fields.Content = append(fields.Content, entry)
		}
	}
	changed := map[string]bool{}
	var overrides []*yaml.Node
	if v := value(src.doc, "override"); v != nil {
		overrides = v.Content
	}
	for i, entry := range overrides {
		name := fieldName(entry)
		at, ok := declared[name]
		if !ok {
			return nil, fmt.Errorf("override[%d]: field %q is not declared in %s", i, name, baseFile)
		}
		if changed[name] {
			return nil, fmt.Errorf("override[%d]: field %s is changed twice", i, name)
		}
		changed[name] = true
		field := fields.Content[at]
		for j := 0; j < len(entry.Content); j += 2 {
			field = with(field, entry.Content[j].Value, entry.Content[j+1])
		}
		fields.Content[at] = field
	}
	if v := value(own, "fields"); v != nil {
		for _, entry := range v.Content {
			name := fieldName(entry)
			if _, dup := declared[name]; dup {
				return nil, fmt.Errorf("field %s: already declared in %s; change it under override", name, baseFile)
			}
			fields.Content = append(fields.Content, entry)
		}
	}
	return with(merged, "fields", fields), nil
}

// value returns the value of key in a YAML mapping, or nil.
func value(mapping *yaml.Node, key string) *yaml.Node {
	if mapping == nil || mapping.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			return mapping.Content[i+1]
		}
	}
	return nil
}

// fieldName is the name a field entry gives.
func fieldName(entry *yaml.Node) string {
	if v := value(entry, "name"); v != nil {
		return v.Value
	}
	return ""
}

// with returns a copy of a mapping with key set to v, replacing its value
// or adding it at the end. Trees are never changed in place: a base's tree
// is shared by every file that extends it.
func with(mapping *yaml.Node, key string, v *yaml.Node) *yaml.Node {
	out := *mapping
	out.Content = slices.Clone(mapping.Content)
	for i := 0; i+1 < len(out.Content); i += 2 {
		if out.Content[i].Value == key {
			out.Content[i+1] = v
			return &out
		}
	}
	out.Content = append(out.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	return &out
}

// without returns a copy of a mapping without the given keys.
func without(mapping *yaml.Node, keys ...string) *yaml.Node {
	out := *mapping
	out.Content = nil
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if !slices.Contains(keys, mapping.Content[i].Value) {
			out.Content = append(out.Content, mapping.Content[i], mapping.Content[i+1])
		}
	}
	return &out
}
