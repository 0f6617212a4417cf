package registers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine/extrafields"
	"fieldapi/engine/store"
)

// The pipeline's own tables beside the registers' (see Schema).
const (
	CompaniesTable  = "companies"   // id, name
	SettingsTable   = "settings"    // a company's settings by name; also the import batches done
	FieldNamesTable = "field_names" // a company's labels of standard fields
	ChangeLogTable  = "change_log"  // the engine's own log of every write
)

// Columns register tables have besides their fields.
const (
	ModifiedField     = "Modified"    // every register: when the record last changed, as stored text
	PermissionsColumn = "permissions" // users only: the signature's permissions
)

// Users is the users register, which doubles as the engine's signatures;
// its table keeps each signature's permissions beside the catalog's fields.
const Users = "users"

// Schema is every table the pipeline needs a store to keep for a catalog:
// one per register, with a column per stored field, and the pipeline's own.
// Modules that keep tables of their own (locations, documents) add them.
// Table and index names are those of the databases written before the
// pipeline existed, so they keep working.
func Schema(cat *catalog.Catalog) (*store.Schema, error) {
	regs, err := Of(cat)
	if err != nil {
		return nil, err
	}
	s := &store.Schema{}
	for _, r := range cat.Registers {
		if err := s.Add(regs[r.Name].storeTable()); err != nil {
			return nil, err
		}
	}
	if err := s.Add(append(ownTables(), extrafields.Tables()...)...); err != nil {
		return nil, fmt.Errorf("catalog: a register takes the name of an engine table: %w", err)
	}
	return s, s.Check()
}

// uniqueIndex names the unique index of the key or a lookup key.
func (r *Register) uniqueIndex(f *catalog.Field) string {
	if f == r.Key {
		return r.Reg.Name + "_key"
	}
	return r.Reg.Name + "_lookup_" + f.Column
}

// UniqueField is the field a unique index of the register's table keeps
// unique (the key or a lookup key), or nil: what a store's
// *store.DuplicateError names.
func (r *Register) UniqueField(index string) *catalog.Field {
	if !r.EngineKeyed && index == r.uniqueIndex(r.Key) {
		return r.Key
	}
	for _, f := range r.Lookups {
		if index == r.uniqueIndex(f) {
			return f
		}
	}
	return nil
}

// modifiedColumn is the column of Modified.
const modifiedColumn = "modified"

// storeTable is the register's table: Modified and a column per stored
// field; the key unique per company (unless it is the Seq); indexes for
// cursors, modifiedSince, filtered fields and an owner's lines.
func (r *Register) storeTable() *store.Table {
	name := r.Reg.Name
	t := &store.Table{Name: name, Company: true, Seq: true, Counted: true}
	t.Columns = append(t.Columns, store.Column{Field: ModifiedField, Name: modifiedColumn, Type: store.Text, NotNull: true})
	for _, f := range r.Stored {
		t.Columns = append(t.Columns, store.Column{Field: f.Name, Name: f.Column, Type: columnType(f.Type), SeqText: f.RowNumber})
	}
	if name == Users {
		t.Columns = append(t.Columns, store.Column{Field: PermissionsColumn, Name: PermissionsColumn, Type: store.Text})
	}
	index := func(suffix string, fields ...string) store.Index {
		return store.Index{Name: name + "_" + suffix, Fields: fields}
	}
	t.Indexes = append(t.Indexes,
		index("company_seq", store.SeqField),
		index("company_modified", ModifiedField))
	if !r.EngineKeyed {
		t.Indexes = append(t.Indexes, store.Index{Name: r.uniqueIndex(r.Key), Fields: []string{r.Key.Name}, Unique: true})
	}
	// A lookup key is unique per company; a record without one stores
	// NULL, which no unique index compares.
	for _, f := range r.Lookups {
		t.Indexes = append(t.Indexes, store.Index{Name: r.uniqueIndex(f), Fields: []string{f.Name}, Unique: true})
	}
	// One index on a line's parent and the list's fixed values finds an
	// owner's lines exactly; without it the planner may pick a filter's
	// index on a fixed value alone (materials by OwnerType). A "contains"
	// filter scans. indexed holds the fields an index leads with already,
	// which need no filter index.
	indexed := map[string]bool{r.Key.Name: true}
	for _, f := range r.Lookups {
		indexed[f.Name] = true
	}
	seen := map[string]bool{}
	for _, o := range r.Owners {
		fields := append([]string{o.Line.Parent}, slices.Sorted(maps.Keys(o.Line.Set))...)
		columns := make([]string, len(fields))
		for i, f := range fields {
			columns[i] = r.Reg.Field(f).Column
		}
		suffix := "lines_" + strings.Join(columns, "_")
		if !seen[suffix] {
			seen[suffix] = true
			indexed[o.Line.Parent] = true
			t.Indexes = append(t.Indexes, index(suffix, fields...))
		}
	}
	t.Indexes = append(t.Indexes, r.sortIndexes(indexed)...)
	for _, fl := range r.Reg.Filters {
		f := r.Reg.Field(fl.Field)
		if (fl.Match == catalog.Contains && !opsUseIndex(fl)) || indexed[f.Name] || (r.EngineKeyed && f == r.Key) {
			continue
		}
		indexed[f.Name] = true
		t.Indexes = append(t.Indexes, index(f.Column, f.Name))
	}
	return t
}

// sortIndexes are the indexes of a register's sortable fields: company,
// field, Seq, the order a sorted list and its cursors read in (the Seq
// breaks ties). indexed holds the fields an index leads with already: a
// unique key needs no other (it has no ties); the fields indexed here are
// added to it, so a filter on them uses this index too.
func (r *Register) sortIndexes(indexed map[string]bool) []store.Index {
	var indexes []store.Index
	for _, f := range r.Reg.SortableFields() {
		if indexed[f.Name] || (r.EngineKeyed && f == r.Key) {
			continue
		}
		indexed[f.Name] = true
		indexes = append(indexes, store.Index{Name: r.Reg.Name + "_sort_" + f.Column, Fields: []string{f.Name, store.SeqField}})
	}
	return indexes
}

// opsUseIndex reports whether a filter's operators compare in an order an
// index keeps (all but prefix, which compares a substring): a contains
// filter, which scans, gets an index for them.
func opsUseIndex(fl *catalog.Filter) bool {
	return slices.ContainsFunc(fl.Ops, func(op catalog.FilterOp) bool { return op != catalog.OpPrefix })
}

func columnType(t catalog.FieldType) store.Type {
	switch t {
	case catalog.Number:
		return store.Number
	case catalog.Bool:
		return store.Bool
	case catalog.List:
		return store.List
	case catalog.Object:
		return store.Object
	}
	return store.Text // text and dates (kept as sent)
}

// ownTables are the pipeline's tables.
func ownTables() []*store.Table {
	text := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Text, NotNull: true}
	}
	flag := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Bool, NotNull: true}
	}
	return []*store.Table{
		{Name: CompaniesTable, Key: []string{"id"}, Columns: []store.Column{text("id"), text("name")}},
		{Name: SettingsTable, Company: true, Key: []string{"name"}, Columns: []store.Column{text("name"), text("value")}},
		{
			Name: FieldNamesTable, Company: true, Key: []string{"db_field_name"},
			Columns: []store.Column{text("db_field_name"), text("user_field_name"), flag("list_only"), flag("hidden")},
		},
		{
			Name: ChangeLogTable, Company: true, Seq: true,
			Columns: []store.Column{text("register"), text("record_key"), text("sign"), text("client_id"),
				flag("via_api"), text("action"), text("detail"), text("at")},
			Indexes: []store.Index{{Name: "change_log_record", Fields: []string{"register", "record_key"}}},
		},
	}
}
