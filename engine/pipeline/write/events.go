package write

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"

	"fieldapi/engine"
	"fieldapi/engine/platform"
)

// Events are recorded in the write's own transaction (an outbox kept by the
// platform): a write that rolls back has none, one that commits has them.

// pendingEvent is an event a write will record when it ends.
type pendingEvent struct {
	register string
	what     string // catalog.EventCreated, a line's or action's event, ...
	key      string
	changed  []string
}

// Emit notes an event of the write on the record of register with key,
// recorded at the write's end with the record its receipt renders.
func (w *Writer) Emit(register, what, key string, changed []string) {
	if changed == nil {
		changed = []string{}
	}
	w.events = append(w.events, pendingEvent{register: register, what: what, key: key, changed: changed})
}

// recordEvents writes the write's events with rec, the record the
// receipt renders.
func (w *Writer) recordEvents(ctx context.Context, rec engine.Record) error {
	events := w.platformEvents(rec)
	if len(events) == 0 {
		return nil
	}
	writes, err := w.e.platform.Bind(w.tx)
	if err != nil {
		return err
	}
	return writes.Record(ctx, w.s.Company, events)
}

// platformEvents are the events the write noted, taken from it, as the
// platform records them, with rec.
func (w *Writer) platformEvents(rec engine.Record) []platform.Event {
	if len(w.events) == 0 || w.e.noEvents {
		w.events = nil
		return nil
	}
	data := rec
	if _, ok := data[engine.VersionField]; ok {
		// The version is the engine's note for the ETag, not a field.
		data = maps.Clone(data)
		delete(data, engine.VersionField)
	}
	events := make([]platform.Event, len(w.events))
	for i, ev := range w.events {
		events[i] = platform.Event{
			ID: newEventID(), Type: w.e.cat.Register(ev.register).EventType(ev.what),
			OccurredAt: w.now, Company: w.s.Company, Register: ev.register, Key: ev.key,
			Actor:         platform.Actor{ClientID: w.s.ClientID, Sign: w.s.Sign},
			ChangedFields: ev.changed, Data: data,
		}
	}
	w.events = nil
	return events
}

// newEventID is a random event id, the webhook-id of its deliveries.
func newEventID() string {
	var b [12]byte
	rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}
