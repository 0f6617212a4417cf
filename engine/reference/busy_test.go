package reference_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/reference"
)

// TestWriteThatTimesOutBeforeItsTransaction: a write whose permission
// check (before its transaction) runs past the deadline wrote nothing, so
// it is engine.ErrBusy (503, safe to retry), never ErrTimeout ("may have
// written", 504): record writes, documents and locations alike.
func TestWriteThatTimesOutBeforeItsTransaction(t *testing.T) {
	for _, b := range sqlBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			dsn := b.DSN(t)
			openDemo(t, dsn, builtin(t), reference.Options{}).Close()
			e := openEngine(t, dsn, builtin(t), reference.Options{}) // a fresh engine: no permissions cached
			expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			var c capture
			for name, write := range map[string]func() error{
				"Create": func() error {
					_, err := e.Create(expired, demoAPI, "customers", engine.Input{Values: map[string]any{"Name": "Sen AB"}}, c.receipt())
					return err
				},
				"AddDocument": func() error {
					_, err := e.AddDocument(expired, demoAPI, "tasks", "10001", engine.NewDocument{Name: "late.txt", Content: []byte("late")}, c.receipt())
					return err
				},
				"PinLocation": func() error {
					_, err := e.PinLocation(expired, demoAPI, "customers", "1001", engine.Pin{Latitude: 1, Longitude: 1}, c.receipt())
					return err
				},
			} {
				err := write()
				if err == nil || errors.Is(err, engine.ErrTimeout) || !(errors.Is(err, engine.ErrBusy) || errors.Is(err, engine.ErrUnreachable)) {
					t.Errorf("%s past its deadline before its transaction: %v; want engine.ErrBusy or ErrUnreachable, never ErrTimeout", name, err)
				}
				t.Logf("%s: %v", name, err)
			}
		})
	}
}

// TestSQLiteBusy: a writer that cannot get the lock within the busy
// timeout answers engine.ErrBusy and writes nothing; readers are not
// blocked by the writer; once the lock is free the write goes through.
func TestSQLiteBusy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := builtin(t)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "engine.db")
	e := openDemo(t, dsn, cat, reference.Options{BusyTimeout: 50 * time.Millisecond})
	release := holdWriteLock(t, dsn, cat)
	var c capture
	_, err := e.Create(ctx, demoAPI, "customers", engine.Input{Values: map[string]any{"Name": "Upptagen AB"}}, c.receipt())
	if !errors.Is(err, engine.ErrBusy) {
		t.Errorf("Create while another connection holds the write lock: %v; want engine.ErrBusy", err)
	}
	if _, err := e.Get(ctx, demoAPI, "customers", "1001"); err != nil {
		t.Errorf("Get while the write lock is held: %v; readers are not blocked", err)
	}
	release()
	if _, err := e.Create(ctx, demoAPI, "customers", engine.Input{Values: map[string]any{"Name": "Ledig AB"}}, c.receipt()); err != nil {
		t.Errorf("Create once the lock is free: %v", err)
	}
	page, err := e.List(ctx, demoAPI, "customers", engine.Query{Limit: 5, Where: []engine.Condition{{Field: "Name", Op: engine.OpContains, Values: []any{"Upptagen"}}}})
	if err != nil || len(page.Records) != 0 {
		t.Errorf("customers named Upptagen: %d, %v; want none: the busy create wrote nothing", len(page.Records), err)
	}
}
