package listquery

import (
	"net/url"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime/problem"
)

// TestListParametersMustBeText: list parameters that are not valid UTF-8 or
// hold NUL, and number filters that are not finite, are 400s, never
// handed to the engine.
func TestListParametersMustBeText(t *testing.T) {
	filters := []Filter{{Param: "name", Field: "Name", Kind: KindText, Match: Contains}, {Param: "level", Field: "Level", Kind: KindNumber}}
	for _, query := range []string{"name=%FF", "name=a%00b", "%C0%AF=1", "name=%ED%A0%80", "level=NaN", "level=-Inf", "level=1e400"} {
		values, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Parse(values, filters)
		if p, ok := err.(*problem.Problem); !ok || p.Status != 400 || p.Title != "invalid_parameter" {
			t.Errorf("%s: %v, want 400 invalid_parameter", query, err)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	is := is.New(t)
	total := 1234
	c, err := decodeCursor(encodeCursor(cursor{Pos: 99, Page: 3, FP: 5, Total: &total}), 5)
	is.NoErr(err)
	is.Equal(c.Pos, int64(99))
	is.Equal(c.Page, 3)
	is.Equal(*c.Total, 1234)
	_, err = decodeCursor(encodeCursor(cursor{Pos: 99, Page: 3, FP: 5}), 6)
	is.True(err != nil) // other filters
}

// FuzzParse: any query string parses or is a 400 problem.
func FuzzParse(f *testing.F) {
	filters := []Filter{
		{Param: "name", Field: "Name", Kind: KindText, Match: Contains},
		{Param: "status", Field: "Status", Kind: KindText, Match: OneOf},
		{Param: "level", Field: "Level", Kind: KindNumber, Match: Equals},
		{Param: "billable", Field: "Internal", Kind: KindBool, Match: Equals, Negate: true},
		{Param: "includeArchived", Field: "Status", Kind: KindText, Match: Hides, Values: []string{"Archived"}},
		{Param: "start", Field: "Start", Kind: KindDate, Match: Equals, Ops: []string{"gte", "lt", "isnull"}},
		{Param: "state", Field: "State", Kind: KindText, Match: Equals, Ops: []string{"in", "prefix"}, Enum: []string{"A", "B"}},
	}
	for _, seed := range []string{"limit=10&page=2", "status=a,,b&level=1.5", "cursor=eyJwIjoxfQ", "modifiedSince=2026-01-01", "billable=maybe", "x=1", "limit=-1",
		"start[gte]=2026-01-01&start[lt]=2026-02-01", "start[isnull]=true", "state[in]=A,C", "state[prefix]=", "start[]=1", "start[gte=1", "[gte]=1", "count=none", "count=x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		values, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		req, err := Parse(values, filters)
		if err != nil {
			if p, ok := err.(*problem.Problem); !ok || p.Status != 400 {
				t.Fatalf("error %v is not a 400 problem", err)
			}
			return
		}
		if req.Query.Limit < 1 || req.Query.Limit > MaxLimit {
			t.Fatalf("limit %d out of range", req.Query.Limit)
		}
	})
}

// FuzzDecodeCursor: a cursor from outside decodes only when it is one of ours.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(cursor{Pos: 42, Page: 2, FP: 7}), uint64(7))
	f.Add("", uint64(0))
	f.Add("!!!", uint64(1))
	f.Fuzz(func(t *testing.T, s string, fp uint64) {
		c, err := decodeCursor(s, fp)
		if err == nil && (c.Pos < 0 || c.Page < 2 || (c.Total != nil && *c.Total < 0)) {
			t.Fatalf("accepted an impossible cursor: %+v", c)
		}
	})
}
