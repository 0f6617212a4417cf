package store

import "testing"

func TestExpr(t *testing.T) {
	cols := map[string]any{"name": "Ek AB", "city": "Örebro", "nr": "17", "empty": nil, "n": int64(3), "pad": "  x  "}
	column := func(name string) (any, bool) {
		v, ok := cols[name]
		return v, ok
	}
	for _, c := range []struct{ expr, want string }{
		// The demo data's expressions.
		{`COALESCE("name", '') || ' / ' || COALESCE("city", '')`, "Ek AB / Örebro"},
		{`UPPER(COALESCE("city", ''))`, "ÖREBRO"},
		{`'Task ' || COALESCE("nr", '')`, "Task 17"},
		// Each form.
		{`'it''s'`, "it's"},
		{`"name"`, "Ek AB"},
		{`"n"`, "3"},
		{`lower("city")`, "örebro"},
		{`Upper('åäö')`, "ÅÄÖ"},
		{`TRIM("pad") || '|'`, "x|"},
		{`("name" || '-') || "nr"`, "Ek AB-17"},
		{`COALESCE("empty", NULL, 'third')`, "third"},
		// NULL propagates through || and the functions.
		{`'x' || "empty"`, ""},
		{`"empty" || 'x'`, ""},
		{`UPPER("empty") || 'x'`, ""},
		{`COALESCE(UPPER("empty"), 'none')`, "none"},
		{`NULL`, ""},
		// Outside the subset.
		{`"missing"`, ""},
		{`'open`, ""},
		{`SUBSTR("name", 1, 2)`, ""},
		{`"name" + 'x'`, ""},
		{`"name" | 'x'`, ""},
		{`UPPER("name", 'x')`, ""},
		{`COALESCE(`, ""},
		{`'a' 'b'`, ""},
		{`1`, ""},
		{``, ""},
		{`()`, ""},
	} {
		if got := EvalExpr(c.expr, column); got != c.want {
			t.Errorf("%s = %q, want %q", c.expr, got, c.want)
		}
	}
}

func TestExactInGo(t *testing.T) {
	text := map[string]bool{"name": true, "nr": true, "n": false}
	isText := func(name string) bool { return text[name] }
	for _, c := range []struct {
		expr string
		want bool
	}{
		{`'Task ' || COALESCE("nr", '')`, true},
		{`COALESCE("name", NULL, 'x') || TRIM("nr")`, true},
		{`("name" || '-') || NULL`, true},
		{`'it''s'`, true},
		// SQL's case mapping beyond ASCII is not Go's.
		{`UPPER(COALESCE("name", ''))`, false},
		{`lower("name")`, false},
		// A column not of text, or not of the row.
		{`'#' || "n"`, false},
		{`"missing"`, false},
		// Outside the subset: the store evaluates it.
		{`SUBSTR("name", 1, 2)`, false},
		{`"name" + 'x'`, false},
		{`(SELECT "name" FROM customers)`, false},
		{`'open`, false},
		{``, false},
	} {
		if got := ExactInGo(c.expr, isText); got != c.want {
			t.Errorf("ExactInGo(%s) = %v, want %v", c.expr, got, c.want)
		}
	}
}
