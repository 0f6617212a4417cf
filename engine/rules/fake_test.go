package rules

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/names"
)

// fakeTx is rules.Tx over records held in memory: enough of an engine to
// run each rule alone.
type fakeTx struct {
	company  string
	now      time.Time
	loc      *time.Location
	settings map[string]string
	records  map[string][]engine.Record // by register, oldest first
	stale    bool                       // UpdateIf finds its expected values changed (a parallel write)

	updates []update   // UpdateIf calls that wrote
	logs    []logEntry // Log calls
}

type update struct {
	register, key string
	set           Values
}

type logEntry struct{ register, key, action, detail string }

// keyFields are the key fields of the registers the tests use (the
// catalog's key); every other register is keyed by Nr.
var keyFields = map[string]string{names.TimeTypes: names.TimeTypeName, names.Addresses: names.AddressId}

func keyField(register string) string {
	if k, ok := keyFields[register]; ok {
		return k
	}
	return "Nr"
}

func newFakeTx() *fakeTx {
	return &fakeTx{
		company:  "demo",
		now:      time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC),
		loc:      time.UTC,
		settings: map[string]string{},
		records:  map[string][]engine.Record{},
	}
}

// with adds records to a register.
func (f *fakeTx) with(register string, recs ...engine.Record) *fakeTx {
	f.records[register] = append(f.records[register], recs...)
	return f
}

func (f *fakeTx) find(register, key string) engine.Record {
	for _, rec := range f.records[register] {
		if rec[keyField(register)] == key {
			return rec
		}
	}
	return nil
}

func (f *fakeTx) Session() engine.Session {
	return engine.Session{Company: f.company, Sign: "API", ClientID: "test"}
}
func (f *fakeTx) Now() time.Time { return f.now }

func (f *fakeTx) Location(context.Context) (*time.Location, error) { return f.loc, nil }

func (f *fakeTx) Setting(_ context.Context, name string) (string, bool, error) {
	v, ok := f.settings[name]
	return v, ok, nil
}

func (f *fakeTx) DecodedSetting(ctx context.Context, name string, decode func(string) (any, error)) (any, bool, error) {
	v, ok, _ := f.Setting(ctx, name)
	if !ok {
		return nil, false, nil
	}
	decoded, err := decode(v)
	return decoded, true, err
}

func (f *fakeTx) Referenced(_ context.Context, register, key string) (engine.Record, error) {
	if rec := f.find(register, key); rec != nil {
		return maps.Clone(rec), nil
	}
	return nil, engine.Refuse("%s %q does not exist", register, key)
}

func (f *fakeTx) Record(_ context.Context, register, key string) (engine.Record, error) {
	if rec := f.find(register, key); rec != nil {
		return maps.Clone(rec), nil
	}
	return nil, engine.ErrNotFound
}

func (f *fakeTx) Records(_ context.Context, register string) ([]engine.Record, error) {
	return f.records[register], nil
}

func (f *fakeTx) UpdateIf(_ context.Context, register, key string, expect, set map[string]any) (bool, error) {
	rec := f.find(register, key)
	if rec == nil || f.stale {
		return false, nil
	}
	for name, want := range expect {
		if fmt.Sprint(rec[name]) != fmt.Sprint(want) {
			return false, nil
		}
	}
	maps.Copy(rec, set)
	f.updates = append(f.updates, update{register, key, maps.Clone(set)})
	return true, nil
}

func (f *fakeTx) Log(_ context.Context, register, key, action, detail string, _ engine.Record) error {
	f.logs = append(f.logs, logEntry{register, key, action, detail})
	return nil
}

var _ Tx = (*fakeTx)(nil)

// refusal is err as the engine's refusal, failing the test otherwise.
func refusal(t *testing.T, err error) *engine.CommandError {
	t.Helper()
	var ce *engine.CommandError
	if !errors.As(err, &ce) {
		t.Fatalf("want a refusal (*engine.CommandError), got %v", err)
	}
	return ce
}

// refusedWith checks err is a refusal whose text contains detail and
// whose validValues are valid.
func refusedWith(t *testing.T, err error, detail string, valid []string) {
	t.Helper()
	ce := refusal(t, err)
	if !strings.Contains(ce.Detail, detail) {
		t.Errorf("refusal %q, want it to contain %q", ce.Detail, detail)
	}
	if !slices.Equal(ce.ValidValues, valid) {
		t.Errorf("validValues %q, want %q", ce.ValidValues, valid)
	}
}

// prepare runs a module's create hook (current nil) or update hook.
func prepare(m Module, tx Tx, current engine.Record, values Values) error {
	if current == nil {
		return m.(CreatePreparer).PrepareCreate(context.Background(), tx, values)
	}
	return m.(UpdatePreparer).PrepareUpdate(context.Background(), tx, current, values)
}
