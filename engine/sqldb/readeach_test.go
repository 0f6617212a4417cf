package sqldb

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestReadEach: independent reads come back in order, each with its own
// rows; a query the database refuses in the middle of them (on
// PostgreSQL, of one batch) fails the call, and the pool's connections
// serve the next calls; a call whose context has ended reads nothing.
func TestReadEach(t *testing.T) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) {
			db := open(t, b.dsn, Options{MaxOpenConns: 1}) // the next call gets the connection the failed batch used
			ctx := context.Background()
			numbers := func(queries ...Query) ([][]int64, error) {
				out := make([][]int64, len(queries))
				err := db.ReadEach(ctx, queries, func(i int, rows Rows) error {
					for rows.Next() {
						var n int64
						if err := rows.Scan(&n); err != nil {
							return err
						}
						out[i] = append(out[i], n)
					}
					return nil
				})
				return out, err
			}
			got, err := numbers(Query{SQL: `SELECT 1 UNION ALL SELECT 2`}, Query{SQL: `SELECT 3 WHERE ? = 'yes'`, Args: []any{"no"}},
				Query{SQL: `SELECT CAST(? AS BIGINT)`, Args: []any{int64(4)}})
			if err != nil || !slices.Equal(got[0], []int64{1, 2}) || got[1] != nil || !slices.Equal(got[2], []int64{4}) {
				t.Fatalf("ReadEach: %v, %v; want [[1 2] [] [4]]", got, err)
			}
			for range 3 {
				if _, err := numbers(Query{SQL: `SELECT 1`}, Query{SQL: `SELECT n FROM no_such_table`}, Query{SQL: `SELECT 2`}); err == nil {
					t.Fatal("ReadEach with a query of a table that does not exist: no error")
				}
				if got, err := numbers(Query{SQL: `SELECT 5`}, Query{SQL: `SELECT 6`}); err != nil || !slices.Equal(got[1], []int64{6}) {
					t.Fatalf("ReadEach after a failed one: %v, %v", got, err)
				}
			}
			stop := errors.New("enough")
			if err := db.ReadEach(ctx, []Query{{SQL: `SELECT 1`}, {SQL: `SELECT 2`}}, func(int, Rows) error { return stop }); !errors.Is(err, stop) {
				t.Errorf("ReadEach whose reader fails: %v, want its error", err)
			}
			ended, cancel := context.WithCancel(ctx)
			cancel()
			if err := db.ReadEach(ended, []Query{{SQL: `SELECT 1`}, {SQL: `SELECT 2`}}, func(int, Rows) error { return nil }); err == nil {
				t.Error("ReadEach with an ended context: no error")
			}
			if got, err := numbers(Query{SQL: `SELECT 7`}, Query{SQL: `SELECT 8`}); err != nil || !slices.Equal(got[0], []int64{7}) {
				t.Fatalf("ReadEach after an ended one: %v, %v", got, err)
			}
		})
	}
}
