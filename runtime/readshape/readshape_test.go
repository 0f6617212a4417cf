package readshape

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// lineShape is a register with one expandable line list, for the limits.
var lineShape = Shape{Key: "Nr", Fields: []string{"Nr", "Name"}, Expand: []Expansion{{
	Name: "Parts", Scope: "parts:read", Lines: true, Key: "Id", Fields: []string{"Id", "Note"},
	View: func(rec engine.Record) any { return map[string]any{"Id": rec["Id"], "Note": rec["Note"]} },
}}}

// TestExpandedLinesAreCapped: an expanded line list of more than
// MaxExpandedLines lines is refused, naming expand; at the cap it is
// answered whole, each line shaped.
func TestExpandedLinesAreCapped(t *testing.T) {
	sr, err := Parse(url.Values{"expand": {"parts"}, "fields": {"Parts.note"}}, lineShape, []string{"parts:read"})
	if err != nil {
		t.Fatal(err)
	}
	lines := func(n int) []engine.Record {
		recs := make([]engine.Record, n)
		for i := range recs {
			recs[i] = engine.Record{"Id": "x", "Note": "n"}
		}
		return recs
	}
	view := map[string]any{"Nr": "1", "Name": "A"}
	body, err := sr.Encode(view, engine.Record{"Parts": lines(MaxExpandedLines)})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Nr    string
		Name  *string
		Parts []map[string]any
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Nr != "1" || got.Name != nil || len(got.Parts) != MaxExpandedLines || len(got.Parts[0]) != 2 {
		t.Fatalf("at the cap: %s (%v)", body, err)
	}
	_, err = sr.Encode(view, engine.Record{"Parts": lines(MaxExpandedLines + 1)})
	if p, ok := err.(*problem.Problem); !ok || p.Status != 400 || !strings.Contains(p.Detail, `"expand"`) {
		t.Fatalf("over the cap: %v; want a 400 naming expand", err)
	}
}

// TestShapeNeedsTheScope: expanding needs the expanded register's read
// scope ("*" holds every scope); fields= alone needs none.
func TestShapeNeedsTheScope(t *testing.T) {
	if _, err := Parse(url.Values{"expand": {"Parts"}}, lineShape, []string{"things:read"}); err == nil || err.(*problem.Problem).Status != 403 {
		t.Errorf("expand without parts:read: %v; want 403", err)
	}
	if _, err := Parse(url.Values{"expand": {"Parts"}}, lineShape, []string{"*"}); err != nil {
		t.Errorf("expand with *: %v", err)
	}
	if _, err := Parse(url.Values{"fields": {"name"}}, lineShape, nil); err != nil {
		t.Errorf("fields alone: %v", err)
	}
}
