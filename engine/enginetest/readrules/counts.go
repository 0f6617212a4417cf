package readrules

import (
	"context"
	"sync"
	"testing"

	"fieldapi/engine"
	"fieldapi/engine/enginetest/kit"
)

// countsExact checks, for every counted register the session may read,
// that the Total of a list without conditions (the count the engine
// keeps) is the number of records a walk finds.
func (s *suite) countsExact(t *testing.T, sessions ...engine.Session) {
	t.Helper()
	for _, sess := range sessions {
		for _, r := range s.Catalog.Registers {
			if r.Uncounted {
				continue
			}
			total := s.Total(t, sess, r.Name)
			if walked := len(s.Walk(t, sess, r.Name, 500)); walked != total {
				t.Errorf("%s of %s: Total %d, but a walk finds %d records", r.Name, sess.Company, total, walked)
			}
		}
	}
}

// testRecordCounts: the totals the engine keeps stay exact through
// imports, parallel creates with lines and refused creates that roll
// back after the record and a line were written; a company without
// records counts none; a filtered total counts the records that pass.
func testRecordCounts(t *testing.T, s *suite) {
	s.Demo(t, "tasks/materials", "tasks.CustomerNr", "tasks.TaskText", "materials.ProductNr", "materials.Quantity")
	ctx := context.Background()
	s.countsExact(t, kit.DemoAPI, kit.Demo2API, s.Company, s.Other) // after the imports
	tasks, materials := s.Total(t, kit.DemoAPI, "tasks"), s.Total(t, kit.DemoAPI, "materials")

	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			lines := []engine.Input{kit.Values(map[string]any{"ProductNr": "4025", "Quantity": 1.0})}
			if i%4 == 3 { // refused after the task and its first line were written
				lines = append(lines, kit.Values(map[string]any{"ProductNr": "no-such-product", "Quantity": 1.0}))
			}
			var c kit.Capture
			_, err := s.Engine.Create(ctx, kit.DemoAPI, "tasks", engine.Input{
				Values: map[string]any{"CustomerNr": "1001", "TaskText": "Räkning"},
				Lines:  map[string][]engine.Input{"materials": lines},
			}, c.Receipt(kit.NoClaim))
			switch {
			case i%4 == 3 && !kit.IsRefusal(err):
				t.Errorf("create %d with a line of an unknown product: %v; want a refusal", i, err)
			case i%4 != 3 && err != nil:
				t.Errorf("create %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if got := s.Total(t, kit.DemoAPI, "tasks"); got != tasks+15 {
		t.Errorf("tasks: Total %d; want %d, the 15 created", got, tasks+15)
	}
	if got := s.Total(t, kit.DemoAPI, "materials"); got != materials+15 {
		t.Errorf("materials: Total %d; want %d, the 15 lines created", got, materials+15)
	}
	s.countsExact(t, kit.DemoAPI, kit.Demo2API, s.Company, s.Other)

	// A filtered total counts the records that pass.
	where := kit.Equals("CustomerNr", "1001")
	if total, walked := s.Total(t, kit.DemoAPI, "tasks", where), len(s.Walk(t, kit.DemoAPI, "tasks", 500, where)); total != walked {
		t.Errorf("tasks of customer 1001: Total %d, but a walk finds %d", total, walked)
	}
}
