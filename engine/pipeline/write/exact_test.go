package write

import (
	"fmt"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine/pipeline/registers"
)

// TestExactMemoIsBounded: companies define the expressions it keeps
// answers for over the API, so however many distinct ones it is asked,
// it holds at most maxExact, and still answers each.
func TestExactMemoIsBounded(t *testing.T) {
	r := &registers.Register{Reg: &catalog.Register{Name: "customers"}}
	var m exactMemo
	for i := range 3 * maxExact {
		if !m.of(r, fmt.Sprintf("'%d'", i)) {
			t.Fatalf("a text literal is not exact in Go")
		}
		if len(m.answer) > maxExact {
			t.Fatalf("after %d expressions the memo holds %d answers, want at most %d", i+1, len(m.answer), maxExact)
		}
	}
	if m.of(r, "Name +") {
		t.Errorf("an expression that does not parse is exact in Go")
	}
}
