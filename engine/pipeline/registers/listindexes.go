package registers

import (
	"slices"

	"fieldapi/catalog"
	"fieldapi/engine/store"
)

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
