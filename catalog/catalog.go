// Package catalog loads and validates the register catalog: one YAML file per
// register, declaring its fields, key, filters, line lists and methods.
//
// Everything derived from a declaration (JSON names, SQL columns, scopes) is
// computed once here, so the generator and the engine read one model.
package catalog

import (
	"encoding/json"
	"strconv"
	"strings"
)

// FieldType is the type of a field's value.
type FieldType string

// The field types of spec section 2.1.
const (
	Text   FieldType = "text"   // JSON string
	Number FieldType = "number" // JSON number
	Date   FieldType = "date"   // ISO 8601 date or date-time, kept as sent
	Bool   FieldType = "bool"   // JSON true/false
	Object FieldType = "object" // map of string to string
	List   FieldType = "list"   // list of text
)

var fieldTypes = []FieldType{Text, Number, Date, Bool, Object, List}

// Match says how a list filter compares its parameter with a field.
type Match string

// The filter matches.
const (
	Equals   Match = "equals"   // field = value (typed by the field)
	Contains Match = "contains" // case-insensitive substring of a text field
	OneOf    Match = "oneOf"    // field is one of a comma-separated list
	Hides    Match = "hides"    // a bool switch: unless true, rows whose field is in Values are hidden
)

var matches = []Match{Equals, Contains, OneOf, Hides}

// Method is a write a register offers besides list and get.
type Method string

// The write methods.
const (
	Create Method = "create" // POST /v1/<register>
	Update Method = "update" // PATCH /v1/<register>/{key}
)

// Catalog is every register, sorted by name.
type Catalog struct {
	Registers []*Register
}

// Register returns the register with the given name, or nil.
func (c *Catalog) Register(name string) *Register {
	for _, r := range c.Registers {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Register is one register of the engine, exposed as /v1/<Name>.
type Register struct {
	File         string            `yaml:"-"`            // catalog file name, e.g. customers.yaml
	Name         string            `yaml:"register"`     // path segment, table and scope prefix
	Record       string            `yaml:"record"`       // Go name of one record, e.g. Customer
	Description  string            `yaml:"description"`  // one line for docs
	Key          string            `yaml:"key"`          // field that identifies a record in paths
	NumberSeries bool              `yaml:"numberSeries"` // an omitted key is assigned by the engine's number series
	ExtraFields  bool              `yaml:"extraFields"`  // records carry customer-defined ExtraFields
	Location     bool              `yaml:"location"`     // records carry a position (…/{key}/location)
	Uncounted    bool              `yaml:"uncounted"`    // lists answer total: null
	Methods      []Method          `yaml:"methods"`      // writes offered; list and get always are
	Defaults     map[string]string `yaml:"defaults"`     // values the engine sets when a create omits them
	RequireOneOf []string          `yaml:"requireOneOf"` // a create must give at least one of these fields
	Documents    bool              `yaml:"documents"`    // records carry documents (…/{key}/documents)
	Fields       []*Field          `yaml:"fields"`
	Filters      []*Filter         `yaml:"filters"`
	Lines        []*Line           `yaml:"lines"`
	Actions      []*Action         `yaml:"actions"`     // named engine commands: POST …/{key}/<name>
	CreateReply  *Reply            `yaml:"createReply"` // a create answers with this summary instead of the record
	LocateFrom   []string          `yaml:"locateFrom"`  // reference fields a record without an address is located from, in order (rulekeys.go)
	Example      map[string]any    `yaml:"example"`     // one record as read, PascalCase, drawn from the demo data (OpenAPI and docs examples)
	// RemovedFields are fields this register no longer has whose stored
	// values are to be dropped: the next migration drops their columns.
	// It is the only way a field's data is removed (README "Changing the
	// catalog safely"); a field that simply disappears is refused.
	RemovedFields []string `yaml:"removedFields"`

	ReadScope  string `yaml:"-"` // <name>:read
	WriteScope string `yaml:"-"` // <name>:write
}

// Field is one field of a register.
type Field struct {
	Name         string    `yaml:"name"`         // PascalCase, as read
	Type         FieldType `yaml:"type"`         // defaults to text
	Writable     bool      `yaml:"writable"`     // may be sent on create and update
	CreateOnly   bool      `yaml:"createOnly"`   // may be sent on create only (implies writable on create)
	Required     bool      `yaml:"required"`     // must be sent on create
	References   string    `yaml:"references"`   // register whose key this field holds; the engine checks it exists
	ReferencesBy string    `yaml:"referencesBy"` // a lookup key of References: the field holds that value instead of the key; the engine checks a record has it
	Lookup       string    `yaml:"lookup"`       // Ref.Field: the engine copies Field of the record that field Ref references
	DefaultFrom  string    `yaml:"defaultFrom"`  // Ref.Field: a create that leaves this field empty takes Field of the record Ref references (rulekeys.go)
	Description  string    `yaml:"description"`  // one line for docs
	Enum         []string  `yaml:"enum"`         // the values a text field can hold, where the engine fixes the set
	NotNull      bool      `yaml:"notNull"`      // the engine always sets it, so it is never read as null (keys and defaults need not say so)
	Sortable     bool      `yaml:"sortable"`     // lists may be sorted by it (sort=); the schema indexes it
	// RenamedFrom is the field's former name: the next migration carries
	// the values stored under it over to this field. Once every database
	// has migrated it does nothing and may be removed.
	RenamedFrom string `yaml:"renamedFrom"`

	// Use, alone in an entry of a register's fields, names a field set
	// (catalog/fieldsets/<Use>.yaml) whose fields stand in the entry's
	// place. The loader replaces the entry: a loaded Field never has one.
	Use string `yaml:"use"`

	// LookupKey makes the field a second key: unique per company, and GET
	// and PUT /v1/<register>/by-<writeName>/{value} address a record by it.
	LookupKey bool `yaml:"lookupKey"`

	// RowNumber makes the field the record's row number: the engine's
	// internal number of its row (its Seq), as decimal text, assigned by
	// the engine when the record is created. A read-only text field, not
	// the key; one per register. A data set may give it a value of its own.
	RowNumber bool `yaml:"rowNumber"`

	// Expand, on a reference field, lets a read expand it (expand=<Expand>):
	// the referenced record, as its own GET reads it, under this name (expand.go).
	Expand string `yaml:"expand"`

	WriteName string `yaml:"-"` // camelCase request name
	Column    string `yaml:"-"` // SQL column
}

// LookupKeys are the register's fields declared lookup keys, in catalog order.
func (r *Register) LookupKeys() []*Field {
	var keys []*Field
	for _, f := range r.Fields {
		if f.LookupKey {
			keys = append(keys, f)
		}
	}
	return keys
}

// Upserts reports whether PUT may create or update a record by a value
// of the field, which must be the key or a lookup key: the register
// offers create and update, and a create may send the field.
func (r *Register) Upserts(f *Field) bool {
	return f != nil && r.Has(Create) && r.Has(Update) && (f.Writable || f.CreateOnly) && (f.Name == r.Key || f.LookupKey)
}

// Filter is a query parameter of the register's list.
type Filter struct {
	Param   string   `yaml:"param"`   // query parameter name
	Field   string   `yaml:"field"`   // field it compares
	Match   Match    `yaml:"match"`   // defaults to equals
	Values  []string `yaml:"values"`  // for hides: the values hidden unless the switch is true
	Negate  bool     `yaml:"negate"`  // for equals on a bool: the parameter is the field's opposite
	Default string   `yaml:"default"` // value assumed when the parameter is absent
	// Ops are the operators the filter allows as param[op]=value, besides
	// its match (listquery.go); its field is indexed for them.
	Ops []FilterOp `yaml:"ops"`
}

// Line is a list of records of another register that a create may carry,
// created all-or-nothing with their owner.
type Line struct {
	Name      string            `yaml:"name"`      // request name, e.g. contacts
	Register  string            `yaml:"register"`  // register of each line
	Parent    string            `yaml:"parent"`    // field of the line that holds the owner's key
	Set       map[string]string `yaml:"set"`       // fixed values of each line, e.g. OwnerType: task
	Read      bool              `yaml:"read"`      // the owner's read shape carries its lines
	Post      bool              `yaml:"post"`      // POST /v1/<owner>/{key}/<name> adds one line
	PostReply []string          `yaml:"postReply"` // fields (camelCase in the reply) answering that POST; empty: the whole line
	Inherit   []string          `yaml:"inherit"`   // fields a line takes from its owner unless it gives its own (rulekeys.go)
	Expand    bool              `yaml:"expand"`    // a read may expand the lines (expand=<ReadName>) when its shape does not carry them (expand.go)

	ReadName string `yaml:"-"` // PascalCase name in the owner's read shape
}

// Action is a named command on one record, carried out by the engine:
// POST /v1/<register>/{key}/<name> with a small body; it answers with the record.
type Action struct {
	Name        string   `yaml:"name"`        // path segment, e.g. status
	Description string   `yaml:"description"` // one line for docs
	Fields      []*Field `yaml:"fields"`      // the body; every field is writable
	Event       string   `yaml:"event"`       // snake_case event name after the record's prefix (status_changed); default: the action's name, snake_case
	Log         string   `yaml:"log"`         // the change-log action its entries carry: GET on the action's path lists them, newest first
}

// Reply is the summary a create answers with, in camelCase.
type Reply struct {
	Fields []string            `yaml:"fields"` // fields of the record
	Lines  map[string][]string `yaml:"lines"`  // per line list: fields of each line
}

// Has reports whether the register offers the write method m.
func (r *Register) Has(m Method) bool {
	for _, x := range r.Methods {
		if x == m {
			return true
		}
	}
	return false
}

// Field returns the field with the given PascalCase name, or nil.
func (r *Register) Field(name string) *Field {
	for _, f := range r.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// KeyField returns the field that identifies a record.
func (r *Register) KeyField() *Field { return r.Field(r.Key) }

// EngineKeyed reports whether the engine assigns the key itself: an Id the
// client can neither send nor choose, on a register the API writes. The
// keys of read-only registers (users by Sign, time types by Name) are not
// writable either, but are given in the engine's administration.
func (r *Register) EngineKeyed() bool {
	k := r.KeyField()
	return k != nil && !k.Writable && !k.CreateOnly && len(r.Methods) > 0
}

// WriteName is the camelCase request name of a PascalCase field name.
func WriteName(name string) string {
	if name == "" {
		return ""
	}
	return strings.ToLower(name[:1]) + name[1:]
}

// Column is the snake_case SQL column of a PascalCase field name:
// AddressLine1 → address_line1, CustomerNr → customer_nr.
func Column(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r + ('a' - 'A'))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FieldName is the PascalCase field name whose Column is column, the
// inverse of Column (address_line1 → AddressLine1), for naming a column
// the catalog no longer declares. ok is false when no field name gives
// that column.
func FieldName(column string) (name string, ok bool) {
	var b strings.Builder
	upper := true
	for _, r := range column {
		switch {
		case r == '_' && !upper:
			upper = true
		case r >= 'a' && r <= 'z':
			if upper {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			upper = false
		case r >= '0' && r <= '9' && !upper:
			b.WriteRune(r)
		default:
			return "", false
		}
	}
	name = b.String()
	if upper || Column(name) != column {
		return "", false
	}
	return name, true
}

// ParseValue turns catalog text (a default, a line's set value, always
// text in YAML) into a value of the field's type, as engines hold it:
// float64, bool, []string (comma separated), map[string]string (JSON) or
// the text itself.
func (f *Field) ParseValue(text string) (any, error) {
	switch f.Type {
	case Number:
		return strconv.ParseFloat(text, 64)
	case Bool:
		return strconv.ParseBool(text)
	case List:
		if text == "" {
			return []string{}, nil
		}
		return strings.Split(text, ","), nil
	case Object:
		obj := map[string]string{}
		if text == "" {
			return obj, nil
		}
		return obj, json.Unmarshal([]byte(text), &obj)
	}
	return text, nil
}
