package contract

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

var Lists = []kit.Test{
	test("newest first with limit and total", testNewestFirst),
	test("page paging", testPagePaging),
	test("cursor walk under concurrent inserts", testCursorWalk),
	test("modifiedSince and modifiedBefore", testModifiedRange),
	test("conditions", testConditions),
	test("an unknown condition field is not a refusal", testUnknownConditionField),
}

// seed creates n subject records named "<prefix> 0" … "<prefix> n-1", in
// that order, and returns their names.
func (s *suite) seed(t *testing.T, sess engine.Session, prefix string, n int) []string {
	t.Helper()
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s %02d", prefix, i)
		s.MustCreate(t, sess, names[i])
	}
	return names
}

func (s *suite) list(t *testing.T, q engine.Query) engine.Page {
	t.Helper()
	page, err := s.Engine.List(context.Background(), s.Company, s.Subject.Reg.Name, q)
	if err != nil {
		t.Fatalf("List %s: %v", s.Subject.Reg.Name, err)
	}
	if len(page.Records) > q.Limit {
		t.Fatalf("List %s with Limit %d answered %d records", s.Subject.Reg.Name, q.Limit, len(page.Records))
	}
	return page
}

// checkTotal checks a page's Total: the number of records matching the
// query, or nil on a register the catalog marks uncounted.
func (s *suite) checkTotal(t *testing.T, page engine.Page, want int) {
	t.Helper()
	switch {
	case s.Subject.Reg.Uncounted && page.Total != nil:
		t.Errorf("Total = %d on an uncounted register; want nil", *page.Total)
	case !s.Subject.Reg.Uncounted && page.Total == nil:
		t.Errorf("Total = nil; want %d (the register is counted unless the catalog says uncounted)", want)
	case !s.Subject.Reg.Uncounted && *page.Total != want:
		t.Errorf("Total = %d; want %d, the records matching the query", *page.Total, want)
	}
}

// testNewestFirst: a list is newest first — most recently created first;
// an update does not move a record — at most Limit records, with Next
// set exactly when more follow.
func testNewestFirst(t *testing.T, s *suite) {
	names := s.seed(t, s.Company, kit.UniqueName("Newest"), 7)
	newest := kit.Reversed(names)

	first := s.list(t, engine.Query{Limit: 3})
	if got := s.Names(first.Records); !slices.Equal(got, newest[:3]) {
		t.Errorf("first page = %q; want the 3 newest, newest first: %q", got, newest[:3])
	}
	if first.Next == nil {
		t.Error("Next = nil on a page with more records after it")
	}
	s.checkTotal(t, first, 7)

	all := s.list(t, engine.Query{Limit: 50})
	if got := s.Names(all.Records); !slices.Equal(got, newest) {
		t.Errorf("all records = %q; want %q", got, newest)
	}
	if all.Next != nil {
		t.Error("Next is set on the last page; want nil")
	}

	// An update changes Modified, not the order of the list.
	oldest := all.Records[len(all.Records)-1]
	in := engine.NewInput()
	in.Values[s.Subject.Name] = names[0]
	if len(s.Subject.Spare) > 0 {
		in.Values[s.Subject.Spare[0]] = "touched"
	}
	var c kit.Capture
	if _, err := s.Engine.Update(context.Background(), s.Company, s.Subject.Reg.Name, s.KeyOf(t, oldest), in, c.Receipt(kit.NoClaim)); err != nil {
		t.Fatalf("Update: %v", err)
	}
	again := s.list(t, engine.Query{Limit: 50})
	if got := s.Names(again.Records); !slices.Equal(got, newest) {
		t.Errorf("after updating the oldest record the list is %q; want it unchanged, %q (newest means most recently created)", got, newest)
	}
}

// testPagePaging: Page n with Limit k is records (n-1)k … nk-1 of the list.
func testPagePaging(t *testing.T, s *suite) {
	newest := kit.Reversed(s.seed(t, s.Company, kit.UniqueName("Paged"), 7))
	for _, c := range []struct {
		page     int
		want     []string
		nextWant bool
	}{
		{1, newest[0:3], true},
		{2, newest[3:6], true},
		{3, newest[6:7], false},
		{4, nil, false},
	} {
		page := s.list(t, engine.Query{Limit: 3, Page: c.page})
		if got := s.Names(page.Records); !slices.Equal(got, c.want) {
			t.Errorf("Page %d = %q; want %q", c.page, got, c.want)
		}
		if (page.Next != nil) != c.nextWant {
			t.Errorf("Page %d: Next set = %v; want %v", c.page, page.Next != nil, c.nextWant)
		}
		s.checkTotal(t, page, 7)
	}
}

// testCursorWalk pages by cursor while records are created, both between
// pages and concurrently: every record that existed when the walk began is
// seen exactly once, newest first, and no record is seen twice.
func testCursorWalk(t *testing.T, s *suite) {
	prefix := kit.UniqueName("Walked")
	existing := kit.Reversed(s.seed(t, s.Company, prefix, 23))

	stop := make(chan struct{})
	var inserter sync.WaitGroup
	var insertErr error
	inserter.Go(func() {
		for i := range 200 { // bounded: it runs beside the walk, not after it
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.Create(s.Company, s.Subject.Input(fmt.Sprintf("%s during %d", prefix, i))); err != nil {
				insertErr = err
				return
			}
			runtime.Gosched()
		}
	})

	seen := map[string]int{}
	var order []string
	q := engine.Query{Limit: 4, Where: []engine.Condition{s.Named(prefix)}}
	for pages := 0; ; pages++ {
		if pages > 100 {
			t.Fatal("the walk did not end after 100 pages")
		}
		page := s.list(t, q)
		if pages == 0 && page.Total != nil && *page.Total < len(existing) {
			t.Errorf("Total on the first page = %d; want at least the %d records that existed", *page.Total, len(existing))
		}
		for _, r := range page.Records {
			key := s.KeyOf(t, r)
			seen[key]++
			if seen[key] == 2 {
				t.Errorf("record %s was listed twice in one walk", key)
			}
			order = append(order, s.Names([]engine.Record{r})[0])
		}
		if _, err := s.Create(s.Company, s.Subject.Input(fmt.Sprintf("%s between %d", prefix, pages))); err != nil {
			t.Fatalf("Create between pages: %v", err)
		}
		if page.Next == nil {
			break
		}
		q.After, q.KnownTotal = page.Next, true
	}
	close(stop)
	inserter.Wait()
	if insertErr != nil {
		t.Fatalf("concurrent Create: %v", insertErr)
	}

	var walked []string
	for _, name := range order {
		if slices.Contains(existing, name) {
			walked = append(walked, name)
		}
	}
	if !slices.Equal(walked, existing) {
		t.Errorf("the records that existed when the walk began were listed as\n%q\nwant each once, newest first:\n%q", walked, existing)
	}
}

// testModifiedRange: ModifiedSince is Modified >= t, ModifiedBefore is
// Modified < t, and an update moves a record's Modified.
func testModifiedRange(t *testing.T, s *suite) {
	prefix := kit.UniqueName("Dated")
	older := s.seed(t, s.Company, prefix+" older", 2)
	s.Clock.Advance(20 * time.Millisecond)
	var newer []string
	var firstNewer engine.Record
	for i := range 2 {
		name := fmt.Sprintf("%s newer %02d", prefix, i)
		rec := s.MustCreate(t, s.Company, name)
		if i == 0 {
			firstNewer = rec
		}
		newer = append(newer, name)
	}
	cut := s.modified(t, firstNewer)

	range_ := func(since, before *time.Time) []string {
		t.Helper()
		page := s.list(t, engine.Query{Limit: 50, ModifiedSince: since, ModifiedBefore: before, Where: []engine.Condition{s.Named(prefix)}})
		s.checkTotal(t, page, len(page.Records))
		got := s.Names(page.Records)
		slices.Sort(got)
		return got
	}
	if got := range_(&cut, nil); !slices.Equal(got, newer) {
		t.Errorf("ModifiedSince the first newer record's Modified = %q; want %q (Modified >= since)", got, newer)
	}
	if got := range_(nil, &cut); !slices.Equal(got, older) {
		t.Errorf("ModifiedBefore the first newer record's Modified = %q; want %q (Modified < before)", got, older)
	}
	if got := range_(&cut, &cut); len(got) != 0 {
		t.Errorf("ModifiedSince = ModifiedBefore selects %q; want nothing", got)
	}

	// An update moves Modified on: the record is modified since now.
	s.Clock.Advance(20 * time.Millisecond)
	older0 := s.Walk(t, s.Company, s.Subject.Reg.Name, 50, s.Named(older[0]))
	if len(older0) != 1 {
		t.Fatalf("the record named %q is listed %d times; want once", older[0], len(older0))
	}
	in := engine.NewInput()
	in.Values[s.Subject.Name] = older[0] + " updated"
	var c kit.Capture
	if _, err := s.Engine.Update(context.Background(), s.Company, s.Subject.Reg.Name, s.KeyOf(t, older0[0]), in, c.Receipt(kit.NoClaim)); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if c.Rec == nil {
		t.Fatal("Update did not render its receipt")
	}
	updated := s.modified(t, c.Rec)
	if !updated.After(cut) {
		t.Errorf("Modified after an update = %s; want later than %s", updated, cut)
	}
	if got := range_(&updated, nil); !slices.Equal(got, []string{older[0] + " updated"}) {
		t.Errorf("ModifiedSince the update = %q; want only the updated record", got)
	}
}

// modified parses a record's Modified, an RFC 3339 time.
func (s *suite) modified(t *testing.T, rec engine.Record) time.Time {
	t.Helper()
	text := rec.Text("Modified")
	if text == nil {
		t.Fatalf("the record has no Modified text: %v", rec)
	}
	m, err := time.Parse(time.RFC3339Nano, *text)
	if err != nil {
		t.Fatalf("Modified %q is not an RFC 3339 time: %v", *text, err)
	}
	return m
}

// testConditions: each operator on the subject's filter fields; several
// conditions all apply.
func testConditions(t *testing.T, s *suite) {
	sub := s.Subject
	prefix := kit.UniqueName("Filtered")
	type row struct{ name, equals string }
	rows := []row{
		{prefix + " Östergården Alpha", "Handel"},
		{prefix + " 100% rabatt", "Handel"},
		{prefix + " byggnad_ab", "Bygg"},
		{prefix + " plain", ""}, // the equals field left empty
	}
	for _, r := range rows {
		in := sub.Input(r.name)
		if sub.Equals != "" && r.equals != "" {
			in.Values[sub.Equals] = r.equals
		}
		if _, err := s.Create(s.Company, in); err != nil {
			t.Fatalf("Create %q: %v", r.name, err)
		}
	}
	cond := func(field string, op engine.Op, values ...any) engine.Condition {
		return engine.Condition{Field: field, Op: op, Values: values}
	}
	type check struct {
		name  string
		where []engine.Condition
		want  []int // indexes of rows
	}
	checks := []check{
		{"contains ignores case", []engine.Condition{cond(sub.Name, engine.OpContains, "ALPHA")}, []int{0}},
		{"contains ignores case beyond ASCII", []engine.Condition{cond(sub.Name, engine.OpContains, "östergården")}, []int{0}},
		{"contains takes % literally", []engine.Condition{cond(sub.Name, engine.OpContains, "100%")}, []int{1}},
		{"contains takes _ literally", []engine.Condition{cond(sub.Name, engine.OpContains, "d_a")}, []int{2}},
		{"contains: % is no wildcard", []engine.Condition{cond(sub.Name, engine.OpContains, "r%b")}, nil},
		{"contains: _ is no wildcard", []engine.Condition{cond(sub.Name, engine.OpContains, "l_i")}, nil},
		{"equals on text", []engine.Condition{cond(sub.Name, engine.OpEquals, rows[3].name)}, []int{3}},
		{"in", []engine.Condition{cond(sub.Name, engine.OpIn, rows[0].name, rows[2].name, "no such name")}, []int{0, 2}},
		{"not in", []engine.Condition{cond(sub.Name, engine.OpNotIn, rows[0].name, rows[2].name)}, []int{1, 3}},
	}
	if sub.Equals != "" {
		checks = append(checks,
			check{"equals", []engine.Condition{cond(sub.Equals, engine.OpEquals, "Handel")}, []int{0, 1}},
			check{"equals nil selects the empty", []engine.Condition{cond(sub.Equals, engine.OpEquals, nil)}, []int{3}},
			check{"not in counts an empty field as none", []engine.Condition{cond(sub.Equals, engine.OpNotIn, "Handel")}, []int{2, 3}},
			check{"in on the equals field", []engine.Condition{cond(sub.Equals, engine.OpIn, "Bygg", "Handel")}, []int{0, 1, 2}},
			check{"conditions all apply", []engine.Condition{cond(sub.Equals, engine.OpEquals, "Handel"), cond(sub.Name, engine.OpContains, "rabatt")}, []int{1}},
		)
	} else {
		t.Logf("the subject %s has no equals filter on a text field: equals, nil and not-in on an empty field are not checked", sub.Reg.Name)
	}
	for _, c := range checks {
		where := append([]engine.Condition{s.Named(prefix)}, c.where...)
		page := s.list(t, engine.Query{Limit: 50, Where: where})
		got := s.Names(page.Records)
		var want []string
		for i := len(c.want) - 1; i >= 0; i-- { // newest first
			want = append(want, rows[c.want[i]].name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q; want %q", c.name, got, want)
		}
		s.checkTotal(t, page, len(want))
	}
}

// testUnknownConditionField: a condition on a field the register lacks is
// a programming error of the caller, not the engine refusing a call.
func testUnknownConditionField(t *testing.T, s *suite) {
	_, err := s.Engine.List(context.Background(), s.Company, s.Subject.Reg.Name, engine.Query{
		Limit: 5, Where: []engine.Condition{{Field: "NoSuchField", Op: engine.OpEquals, Values: []any{"x"}}},
	})
	if err == nil {
		t.Fatal("List with a condition on an unknown field succeeded; want an error")
	}
	if kit.IsRefusal(err) {
		t.Errorf("an unknown condition field answered a CommandError (422 to the client); it is the caller's fault: want a plain error (500)")
	}
}
