package platformtest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

var feedTests = []test{
	{"feed positions and paging", testFeedPaging},
	{"feed filters", testFeedFilters},
	{"a cursor behind pruned events expires", testFeedExpiry},
}

// feedFixture records, in company A: task.created (1), then
// customer.created (2) and task.status_changed (3) in one write, then
// order.line_added (4); in company B two task.created (1, 2).
func (s *suite) feedFixture(t *testing.T) (a, b []platform.Event) {
	a = append(a, s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "T1"))...)
	a = append(a, s.record(t, companyA, 2,
		s.event(companyA, "customers", "customer.created", "C1"),
		s.event(companyA, "tasks", "task.status_changed", "T1"))...)
	b = s.record(t, companyB, 1, s.event(companyB, "tasks", "task.created", "TB1"), s.event(companyB, "tasks", "task.created", "TB2"))
	a = append(a, s.record(t, companyA, 4, s.event(companyA, "orders", "order.line_added", "O1"))...)
	return a, b
}

// testFeedPaging: positions are 1..n per company in write order, the
// payload is the event's JSON with its position, After and Limit page
// through, and Next is the last position read, or After when nothing is
// there.
func testFeedPaging(t *testing.T, s *suite) {
	a, b := s.feedFixture(t)
	page := s.feed(t, companyA, engine.EventQuery{Limit: 10}, nil)
	if got := positions(page.Events); !slices.Equal(got, []int64{1, 2, 3, 4}) || page.Next != 4 {
		t.Fatalf("company A's feed = %v, next %d; want [1 2 3 4], next 4", got, page.Next)
	}
	for i, ev := range page.Events {
		samePayload(t, ev, a[i])
	}
	page = s.feed(t, companyB, engine.EventQuery{Limit: 10}, nil)
	if got := positions(page.Events); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("company B's feed = %v; want [1 2], apart from A's", got)
	}
	samePayload(t, page.Events[1], b[1])

	for _, step := range []struct {
		after    int64
		limit    int
		want     []int64
		wantNext int64
	}{
		{0, 2, []int64{1, 2}, 2},
		{2, 2, []int64{3, 4}, 4},
		{4, 2, []int64{}, 4},
		{3, 10, []int64{4}, 4},
	} {
		page := s.feed(t, companyA, engine.EventQuery{After: step.after, Limit: step.limit}, nil)
		if got := positions(page.Events); !slices.Equal(got, step.want) || page.Next != step.wantNext {
			t.Errorf("feed after %d, limit %d = %v, next %d; want %v, next %d", step.after, step.limit, got, page.Next, step.want, step.wantNext)
		}
	}
	page = s.feed(t, "company-without-events", engine.EventQuery{After: 7, Limit: 10}, nil)
	if page.Events == nil || len(page.Events) != 0 || page.Next != 7 {
		t.Errorf("feed of a company without events = %v, next %d; want an empty list, next 7", page.Events, page.Next)
	}
}

// testFeedFilters: type patterns ("task.*", exact types, "*"), the
// register filter and the readable registers select events; when fewer
// than the limit match, Next moves to the last position, so a filtered
// cursor does not read the same events again.
func testFeedFilters(t *testing.T, s *suite) {
	s.feedFixture(t)
	for _, c := range []struct {
		name     string
		q        engine.EventQuery
		readable []string
		want     []int64
		wantNext int64
	}{
		{"a prefix pattern", engine.EventQuery{Types: []string{"task.*"}}, nil, []int64{1, 3}, 4},
		{"an exact type", engine.EventQuery{Types: []string{"task.created"}}, nil, []int64{1}, 4},
		{"every type", engine.EventQuery{Types: []string{"order.line_added", "*"}}, nil, []int64{1, 2, 3, 4}, 4},
		{"a pattern or a type", engine.EventQuery{Types: []string{"task.*", "order.line_added"}}, nil, []int64{1, 3, 4}, 4},
		{"a pattern of another case", engine.EventQuery{Types: []string{"TASK.*"}}, nil, []int64{}, 4},
		{"a pattern of a shorter prefix", engine.EventQuery{Types: []string{"tas.*"}}, nil, []int64{}, 4},
		{"a prefix without its pattern", engine.EventQuery{Types: []string{"task"}}, nil, []int64{}, 4},
		{"a register", engine.EventQuery{Register: "customers"}, nil, []int64{2}, 4},
		{"a register and a type", engine.EventQuery{Register: "tasks", Types: []string{"task.status_changed"}}, nil, []int64{3}, 4},
		{"readable registers", engine.EventQuery{}, []string{"tasks", "orders"}, []int64{1, 3, 4}, 4},
		{"no readable register", engine.EventQuery{}, []string{}, []int64{}, 4},
		{"readable and a register it cannot read", engine.EventQuery{Register: "customers"}, []string{"tasks"}, []int64{}, 4},
		{"a full page keeps its last position", engine.EventQuery{Types: []string{"task.*"}, Limit: 1}, nil, []int64{1}, 1},
		{"the next page", engine.EventQuery{After: 1, Types: []string{"task.*"}, Limit: 1}, nil, []int64{3}, 3},
		{"the page after", engine.EventQuery{After: 3, Types: []string{"task.*"}, Limit: 1}, nil, []int64{}, 4},
	} {
		if c.q.Limit == 0 {
			c.q.Limit = 10
		}
		page := s.feed(t, companyA, c.q, c.readable)
		if got := positions(page.Events); !slices.Equal(got, c.want) || page.Next != c.wantNext {
			t.Errorf("%s: feed = %v, next %d; want %v, next %d", c.name, got, page.Next, c.want, c.wantNext)
		}
	}
}

// testFeedExpiry: PruneEvents deletes the events that occurred before the
// cut in every company; a cursor before the last pruned position is
// engine.ErrCursorExpired, one at it or past it reads on, and a cursor of
// 0 reads from the oldest kept.
func testFeedExpiry(t *testing.T, s *suite) {
	s.record(t, companyA, 1, s.event(companyA, "tasks", "task.created", "1"), s.event(companyA, "tasks", "task.created", "2"))
	s.record(t, companyB, 1, s.event(companyB, "tasks", "task.created", "b1"))
	cut := s.Clock.Now().Add(30 * time.Minute)
	s.Clock.Advance(time.Hour)
	kept := s.record(t, companyA, 3, s.event(companyA, "tasks", "task.created", "3"))

	n, err := s.Platform.PruneEvents(s.ctx, cut)
	if err != nil || n != 3 {
		t.Fatalf("PruneEvents = %d, %v; want 3 (2 of A, 1 of B)", n, err)
	}
	if _, err := s.Platform.Feed(s.ctx, companyA, engine.EventQuery{After: 1, Limit: 10}, nil); !errors.Is(err, engine.ErrCursorExpired) {
		t.Errorf("feed after a pruned position: %v; want engine.ErrCursorExpired", err)
	}
	for _, after := range []int64{0, 2} {
		page := s.feed(t, companyA, engine.EventQuery{After: after, Limit: 10}, nil)
		if got := positions(page.Events); !slices.Equal(got, []int64{3}) || page.Next != 3 {
			t.Errorf("feed after %d once pruned = %v, next %d; want [3], next 3", after, got, page.Next)
		} else {
			samePayload(t, page.Events[0], kept[0])
		}
	}
	if page := s.feed(t, companyB, engine.EventQuery{Limit: 10}, nil); len(page.Events) != 0 || page.Next != 1 {
		t.Errorf("company B's feed once pruned = %v, next %d; want nothing, next 1", positions(page.Events), page.Next)
	}
	if n, err := s.Platform.PruneEvents(s.ctx, cut); err != nil || n != 0 {
		t.Errorf("PruneEvents again = %d, %v; want 0", n, err)
	}
	if _, err := s.Platform.Feed(s.ctx, companyA, engine.EventQuery{After: 1, Limit: 10}, nil); !errors.Is(err, engine.ErrCursorExpired) {
		t.Errorf("feed after a pruned position, pruned again: %v; want engine.ErrCursorExpired", err)
	}
	// New events keep their positions after the pruned ones.
	s.record(t, companyB, 2, s.event(companyB, "tasks", "task.created", "b2"))
	if page := s.feed(t, companyB, engine.EventQuery{After: 1, Limit: 10}, nil); !slices.Equal(positions(page.Events), []int64{2}) {
		t.Errorf("company B's feed after a new event = %v; want [2]", positions(page.Events))
	}
}
