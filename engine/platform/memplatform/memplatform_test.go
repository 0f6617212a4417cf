package memplatform_test

import (
	"testing"

	"fieldapi/engine/platform/memplatform"
	"fieldapi/engine/platform/platformtest"
	"fieldapi/engine/store/memstore"
	"fieldapi/engine/store/storetest"
)

// TestPlatform runs the platform conformance suite, paired with a memory
// record store.
func TestPlatform(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		clock := platformtest.NewClock()
		records, err := memstore.New(storetest.Schema())
		if err != nil {
			t.Fatal(err)
		}
		return platformtest.Harness{Platform: memplatform.New(memplatform.Options{Now: clock.Now}), Store: records, Clock: clock}
	})
}
