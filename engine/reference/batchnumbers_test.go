package reference_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/reference"
	"fieldapi/internal/dbtest"
)

// TestBatchNumbersAsOneByOne: the creates of an atomic batch that take
// their numbers at once (engine.WithLikeWrites) get the numbers they would
// get one by one: in order, skipping a key given by hand in the batch,
// and what the batch took and did not use goes back to the series where
// the store gives numbers back (SQLite, memory); PostgreSQL's sequences keep
// them, a gap, as after a rolled-back create.
func TestBatchNumbersAsOneByOne(t *testing.T) {
	backends := append(sqlBackends(t), dbtest.Backend{Name: "memory", DSN: func(testing.TB) string { return reference.MemoryDSN }})
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			e := openDemo(t, b.DSN(t), builtin(t), reference.Options{})
			s := engine.Session{Company: "demo", Sign: "API", ClientID: "numbers"}
			var nr string
			receipt := engine.Receipt{Render: func(rec engine.Record) (engine.Response, error) {
				nr, _ = rec["Nr"].(string)
				return engine.Response{Status: 201}, nil
			}}
			create := func(ctx context.Context, hand string) int {
				t.Helper()
				in := engine.NewInput()
				in.Values["CustomerNr"], in.Values["TaskText"] = "1001", "numbered"
				if hand != "" {
					in.Values["Nr"] = hand
				}
				if _, err := e.Create(ctx, s, "tasks", in, receipt); err != nil {
					t.Fatal(err)
				}
				n, err := strconv.Atoi(nr)
				if err != nil {
					t.Fatalf("Nr %q", nr)
				}
				return n
			}
			first := create(ctx, "")
			var got []int
			_, err := e.Atomically(ctx, s, engine.Claim{}, func(ctx context.Context) (engine.Response, error) {
				got = append(got, create(engine.WithLikeWrites(ctx, 6), ""))
				got = append(got, create(engine.WithLikeWrites(ctx, 1), strconv.Itoa(first+3)))
				got = append(got, create(engine.WithLikeWrites(ctx, 5), ""))
				got = append(got, create(engine.WithLikeWrites(ctx, 4), ""))
				return engine.Response{Status: 200}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []int{first + 1, first + 3, first + 2, first + 4}
			if !slices.Equal(got, want) {
				t.Errorf("numbers in the batch %v, want %v (as one by one)", got, want)
			}
			after := create(ctx, "")
			if b.Name != "postgres" && after != first+5 {
				t.Errorf("the create after the batch got %d, want %d: the batch's unused numbers go back", after, first+5)
			}
			if after <= first+4 {
				t.Errorf("the create after the batch got %d, want above %d", after, first+4)
			}
		})
	}
}
