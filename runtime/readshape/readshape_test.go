package readshape

import (
	"encoding/json"
	"net/url"
	"slices"
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

// viewOf is a view that answers v whatever the record.
func viewOf(v any) func(engine.Record) any { return func(engine.Record) any { return v } }

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
	body, err := sr.Encode(engine.Record{"Parts": lines(MaxExpandedLines)}, viewOf(view))
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
	_, err = sr.Encode(engine.Record{"Parts": lines(MaxExpandedLines + 1)}, viewOf(view))
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

// TestLineFieldsNarrowLines: fields= naming a line list's fields after it
// asks the engine for the list with those fields and the line's key, and
// answers each line with them only; an empty or null list stays as read.
func TestLineFieldsNarrowLines(t *testing.T) {
	rows := Shape{Key: "Nr", Fields: []string{"Nr", "Name", "Rows"}, Lines: []LineList{{Name: "Rows", Key: "Id", Fields: []string{"Id", "Note", "Qty"}}}}
	sr, err := Parse(url.Values{"fields": {"rows.qty"}}, rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := sr.Engine; !slices.Equal(got.Fields, []string{"Nr", "Rows"}) || !slices.Equal(got.Lines["Rows"], []string{"Id", "Qty"}) || len(got.Lines) != 1 {
		t.Fatalf("engine shape %+v; want Nr and Rows, its lines' Id and Qty", got)
	}
	for rowsJSON, want := range map[string]string{
		`[{"Id":"a","Note":"n","Qty":2},{"Id":"b","Note":"m","Qty":3}]`: `{"Nr":"1","Rows":[{"Id":"a","Qty":2},{"Id":"b","Qty":3}]}`,
		`[]`:   `{"Nr":"1","Rows":[]}`,
		`null`: `{"Nr":"1","Rows":null}`,
	} {
		view := map[string]json.RawMessage{"Nr": json.RawMessage(`"1"`), "Name": json.RawMessage(`"A"`), "Rows": json.RawMessage(rowsJSON)}
		body, err := sr.Encode(engine.Record{}, viewOf(view))
		if err != nil || string(body) != want {
			t.Errorf("Rows %s: %s (%v); want %s", rowsJSON, body, err, want)
		}
	}
	if _, err := Parse(url.Values{"fields": {"Name.Note"}}, rows, nil); err == nil || !strings.Contains(err.Error(), "neither a line list nor an expansion") {
		t.Errorf("a name inside Name: %v; want a 400 saying it is neither", err)
	}
}
