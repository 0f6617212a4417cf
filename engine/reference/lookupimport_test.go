package reference_test

import (
	"context"
	"testing"

	"fieldapi/catalog/catalogtest"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/reference"
)

// gaugesYAML is a register with a lookup key, added to the builtin catalog.
const gaugesYAML = `register: gauges
record: Gauge
description: Gauges, each with a tag of its own or none.
key: Nr
numberSeries: true
methods: [create, update]
fields:
  - {name: Nr, writable: true}
  - {name: Tag, writable: true, lookupKey: true}
`

// TestLoadLookupKeys: the load paths (Import, BulkInsert) store an empty
// lookup key as none, as an API write does, so records loaded without one
// never collide in its unique index, with each other or with one created
// without one; a load that repeats a value is refused whole, on every
// store.
func TestLoadLookupKeys(t *testing.T) {
	cat, err := catalogtest.BuiltinWith(func(files map[string]string) { files["gauges.yaml"] = gaugesYAML })
	if err != nil {
		t.Fatal(err)
	}
	gauge := func(nr, tag string) dataset.Record {
		return dataset.Record{Values: map[string]any{"Nr": nr, "Tag": tag}}
	}
	for _, b := range backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			e := openDemo(t, b.DSN(t), cat, reference.Options{})
			imported := func(batch string, recs ...dataset.Record) error {
				return e.Import(ctx, dataset.Company{ID: "demo", Name: "demo", Batches: []dataset.Batch{
					{Name: batch, Registers: []dataset.Register{{Name: "gauges", Records: recs}}}}})
			}
			bulk := func(recs ...dataset.Record) error {
				return e.BulkInsert(ctx, "demo", []dataset.Register{{Name: "gauges", Records: recs}})
			}
			create := func(tag string) error {
				var c capture
				_, err := e.Create(ctx, demoAPI, "gauges", engine.Input{Values: map[string]any{"Tag": tag}}, c.receipt())
				return err
			}

			if err := imported("gauges without tags", gauge("I1", ""), gauge("I2", ""), dataset.Record{Values: map[string]any{"Nr": "I3"}}); err != nil {
				t.Fatalf("import of gauges without a tag: %v", err)
			}
			if err := bulk(gauge("B1", ""), gauge("B2", "")); err != nil {
				t.Fatalf("bulk load of gauges without a tag: %v", err)
			}
			if err := create(""); err != nil {
				t.Fatalf("create of a gauge without a tag beside loaded ones: %v", err)
			}

			if err := imported("one tag twice", gauge("I4", "T"), gauge("I5", "T")); err == nil {
				t.Error("import of two gauges with one tag succeeded")
			}
			if err := bulk(gauge("B3", "T"), gauge("B4", "T")); err == nil {
				t.Error("bulk load of two gauges with one tag succeeded")
			}
			if err := create("T"); err != nil { // the refused loads left nothing
				t.Fatalf("create of the tag the refused loads repeated: %v", err)
			}
			if err := bulk(gauge("B5", "T")); err == nil {
				t.Error("bulk load of a gauge with a tag in use succeeded")
			}
		})
	}
}
