package writerules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// testNumberSeries: a create without a key takes the next number of the
// company's series; a key given by hand is kept and skipped later; a key
// taken is refused with the engine's text; a refused create gives its
// number back; each company has its own series.
func testNumberSeries(t *testing.T, s *suite) {
	s.Demo(t, "customers.Nr", "customers.Name", "customers.Status", "customers.Category")
	create := func(v map[string]any) (string, error) {
		t.Helper()
		rec, err := s.CreateIn(kit.DemoAPI, "customers", kit.Values(v))
		return kit.Text(rec, "Nr"), err
	}
	must := func(v map[string]any) string {
		t.Helper()
		nr, err := create(v)
		if err != nil {
			t.Fatalf("Create customer %v: %v", v, err)
		}
		return nr
	}

	// The demo keys end at 1060; the series continues after them.
	first, err := s.CreateIn(kit.DemoAPI, "customers", kit.Values(map[string]any{"Name": "Numrerad Kund AB"}))
	if err != nil {
		t.Fatal(err)
	}
	if first["Nr"] != "1061" || first["Status"] != "Active" {
		t.Errorf("first new customer: Nr %v, Status %v; want 1061 (after the demo's 1060) and Active (the register's default)", first["Nr"], first["Status"])
	}
	if nr := must(map[string]any{"Nr": "1062", "Name": "Handnumrerad AB"}); nr != "1062" {
		t.Errorf("a key given by hand: Nr %q; want 1062 as given", nr)
	}
	if nr := must(map[string]any{"Name": "Nästa Kund AB"}); nr != "1063" {
		t.Errorf("the next create: Nr %q; want 1063 (the series skips the 1062 given by hand)", nr)
	}
	_, err = create(map[string]any{"Nr": "1001", "Name": "Dubblett AB"})
	var taken *engine.KeyTakenError
	if !errors.As(err, &taken) || taken.Error() != "Customer Nr 1001 already exists" {
		t.Errorf("Create with a taken key: %v; want KeyTakenError Customer Nr 1001 already exists", err)
	}

	_, err = create(map[string]any{"Name": "Återställd AB", "Category": 5.0})
	refused(t, err, "Create with a number for a text field")
	if nr := must(map[string]any{"Name": "Efter återställning AB"}); nr != "1064" {
		t.Errorf("after a refused create: Nr %q; want 1064 (the refused create used no number)", nr)
	}

	// Series are per company: demo2 numbers its own customers.
	rec, err := s.CreateIn(kit.Demo2API, "customers", kit.Values(map[string]any{"Name": "Ny Kunde AS"}))
	if err != nil {
		t.Fatal(err)
	}
	if rec["Nr"] != "5021" {
		t.Errorf("demo2's new customer: Nr %v; want 5021, after demo2's own", rec["Nr"])
	}
}

// testNumberSeriesConcurrency: customers created in parallel each get a
// number of their own, with no gaps.
func testNumberSeriesConcurrency(t *testing.T, s *suite) {
	s.Demo(t, "customers.Nr", "customers.Name")
	const n = 20
	var wg sync.WaitGroup
	nrs := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			var c kit.Capture
			_, errs[i] = s.Engine.Create(context.Background(), kit.DemoAPI, "customers",
				kit.Values(map[string]any{"Name": fmt.Sprintf("Parallell %d AB", i)}), c.Receipt(kit.NoClaim))
			nrs[i] = kit.Text(c.Rec, "Nr")
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("parallel create %d: %v", i, err)
		}
	}
	want := make([]string, n)
	for i := range want {
		want[i] = strconv.Itoa(1061 + i)
	}
	slices.Sort(nrs)
	if !slices.Equal(nrs, want) {
		t.Errorf("numbers of %d parallel creates = %v; want each of %v once", n, nrs, want)
	}
}
