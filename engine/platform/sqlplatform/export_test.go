package sqlplatform

// LZ4Columns are the columns Migrate compresses with lz4 on PostgreSQL,
// as table and column.
func LZ4Columns() [][2]string {
	cols := make([][2]string, len(lz4Columns))
	for i, c := range lz4Columns {
		cols[i] = [2]string{c.table, c.column}
	}
	return cols
}

// SetPruneChunk sets how many events PruneEvents deletes per transaction.
func (p *Platform) SetPruneChunk(n int) { p.pruneChunk = n }
