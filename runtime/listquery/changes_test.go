package listquery

import (
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// TestChangeQuery: a change-log list takes limit as every list does and,
// where it lists every action's entries, action; anything else is a 400
// naming the parameter.
func TestChangeQuery(t *testing.T) {
	for _, c := range []struct {
		name, query, logAction string
		want                   engine.ChangeQuery
		refused                string // the parameter a 400 names
		valid                  []string
	}{
		{name: "defaults", query: "", want: engine.ChangeQuery{Limit: DefaultLimit}},
		{name: "a limit", query: "limit=3", want: engine.ChangeQuery{Limit: 3}},
		{name: "a larger limit is served the most", query: "limit=100000", want: engine.ChangeQuery{Limit: MaxLimit}},
		{name: "one action", query: "action=create+line&limit=2", want: engine.ChangeQuery{Action: "create line", Limit: 2}},
		{name: "an action log is one action's", query: "", logAction: "note", want: engine.ChangeQuery{Action: "note", Limit: DefaultLimit}},
		{name: "zero limit", query: "limit=0", refused: "limit"},
		{name: "limit not a number", query: "limit=ten", refused: "limit"},
		{name: "empty action", query: "action=", refused: "action"},
		{name: "action twice", query: "action=update&action=status", refused: "action"},
		{name: "action on an action log", query: "action=update", logAction: "note", refused: "action", valid: []string{"limit"}},
		{name: "paging", query: "cursor=abc", refused: "cursor", valid: []string{"limit", "action"}},
		{name: "not text", query: "action=%00", refused: "action"},
	} {
		t.Run(c.name, func(t *testing.T) {
			is := is.New(t)
			values, err := Values(c.query)
			is.NoErr(err)
			q, err := ParseChanges(values, c.logAction)
			if c.refused == "" {
				is.NoErr(err)
				is.Equal(q, c.want)
				return
			}
			var p *problem.Problem
			is.True(errors.As(err, &p))
			is.Equal(p.Title, "invalid_parameter")
			is.True(strings.HasPrefix(p.Detail, `parameter "`+c.refused+`"`)) // names the parameter
			if c.valid != nil {
				is.Equal(p.ValidValues, c.valid)
			}
		})
	}
}
