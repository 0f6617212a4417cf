package memplatform

import (
	"cmp"
	"context"
	"slices"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// feed is a company's events, in position order, with the counter the
// positions come from.
type feed struct {
	events []recorded
	last   int64 // the last position given
	pruned int64 // the last position PruneEvents deleted: a cursor below it expired
}

// recorded is an event as the feed keeps it. Its payload never changes
// once recorded, so pages and deliveries share it.
type recorded struct {
	engine.Event
	register   string
	occurredAt string // as the pipeline wrote it (platform.OccurredAt), compared as text as SQL does
}

// after is the feed's events after a position, oldest first.
func (f *feed) after(position int64) []recorded {
	i, _ := slices.BinarySearchFunc(f.events, position+1, func(e recorded, pos int64) int { return cmp.Compare(e.Position, pos) })
	return f.events[i:]
}

// record appends the events with the company's next positions, first to
// last. The caller holds the mutex.
func (p *Platform) record(company string, events []platform.Event) (first, last int64, err error) {
	f := p.feeds[company]
	if f == nil {
		f = &feed{}
		p.feeds[company] = f
	}
	first = f.last + 1
	add := make([]recorded, len(events))
	for i, ev := range events {
		ev.Position = first + int64(i)
		payload, err := ev.Payload()
		if err != nil {
			return 0, 0, err
		}
		add[i] = recorded{
			Event:    engine.Event{Position: ev.Position, ID: ev.ID, Type: ev.Type, Payload: payload},
			register: ev.Register, occurredAt: ev.OccurredAt,
		}
	}
	f.events = append(f.events, add...)
	f.last += int64(len(events))
	return first, f.last, nil
}

// unrecord takes back the events first..last of a write that rolled back,
// and their positions unless a later write took positions after them
// (memstore rolls back before the next write starts; another store might
// not). The caller holds the mutex.
func (p *Platform) unrecord(company string, first, last int64) {
	f := p.feeds[company]
	f.events = slices.DeleteFunc(f.events, func(e recorded) bool { return e.Position >= first && e.Position <= last })
	if f.last == last {
		f.last = first - 1
	}
}

// Feed reads one page of the company's feed, oldest first.
func (p *Platform) Feed(_ context.Context, company string, q engine.EventQuery, readable []string) (engine.EventPage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	page := engine.EventPage{Events: []engine.Event{}, Next: q.After}
	f := p.feeds[company]
	if f == nil {
		return page, nil
	}
	if q.After > 0 && q.After < f.pruned {
		return engine.EventPage{}, engine.ErrCursorExpired
	}
	for _, ev := range f.after(q.After) {
		if len(page.Events) >= q.Limit {
			break
		}
		if (q.Register != "" && ev.register != q.Register) || !platform.Delivers(q.Types, readable, ev.Type, ev.register) {
			continue
		}
		page.Events = append(page.Events, ev.Event)
		page.Next = ev.Position
	}
	if len(page.Events) < q.Limit && f.last > page.Next {
		page.Next = f.last // nothing else matched up to the last position
	}
	return page, nil
}

// PruneEvents deletes events recorded before the given time and notes, per
// company, the last position pruned: a cursor below it answers
// engine.ErrCursorExpired.
func (p *Platform) PruneEvents(_ context.Context, before time.Time) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cut := platform.OccurredAt(before)
	n := 0
	for _, f := range p.feeds {
		f.events = slices.DeleteFunc(f.events, func(ev recorded) bool {
			if ev.occurredAt >= cut {
				return false
			}
			f.pruned = max(f.pruned, ev.Position)
			n++
			return true
		})
	}
	return n, nil
}
