package runtime

import (
	"encoding/json"
	"net/url"
	"testing"

	"fieldapi/engine"
	"fieldapi/runtime/problem"
)

// sampleBody is a request body of every field type, as generated code
// declares one.
type sampleBody struct {
	Name  Optional[string]
	Price Optional[float64]
	Done  Optional[bool]
	When  Optional[Date]
	Signs Optional[[]string]
	Extra Optional[map[string]string]
	Lines []sampleBody
}

var sampleShape = Shape{Writable: []string{"name", "price", "done", "when", "signs", "extraFields", "lines"}, ReadOnly: []string{"status"}}

func (b *sampleBody) DecodeField(name string, raw json.RawMessage) (err error) {
	switch name {
	case "name":
		return b.Name.Decode(raw)
	case "price":
		return b.Price.Decode(raw)
	case "done":
		return b.Done.Decode(raw)
	case "when":
		return b.When.Decode(raw)
	case "signs":
		return b.Signs.Decode(raw)
	case "extraFields":
		return b.Extra.Decode(raw)
	case "lines":
		b.Lines, err = DecodeLines[sampleBody](raw, "lines", sampleShape)
		return err
	}
	return problem.UnknownField(name, nil)
}

func (b *sampleBody) Input() engine.Input {
	in := engine.NewInput()
	b.Name.Put(in.Values, "Name")
	b.Price.Put(in.Values, "Price")
	b.Done.Put(in.Values, "Done")
	b.When.Put(in.Values, "When")
	b.Signs.Put(in.Values, "Signs")
	if b.Extra.Presence == Set {
		in.Extra = b.Extra.Value
	}
	for i := range b.Lines {
		in.AddLine("lines", b.Lines[i].Input())
	}
	return in
}

// FuzzDecodeBody: any bytes decode to an input or a 400 problem; never a
// panic, never another kind of error.
func FuzzDecodeBody(f *testing.F) {
	for _, seed := range []string{
		`{"name":"A","price":1.5,"done":true,"when":"2026-05-01T08:00:00Z","signs":["A","B"],"extraFields":{"a.b":"1"}}`,
		`{"name":null,"price":"","when":""}`,
		`{"lines":[{"name":"x"},{"status":"y"}]}`,
		`{"name":"a","name":"b"}`, `[]`, `{`, `{"x":1}`, ``, `{"price":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := DecodeBody[sampleBody](data, sampleShape)
		if err != nil {
			p, ok := err.(*Problem)
			if !ok || p.Status != 400 {
				t.Fatalf("error %v is not a 400 problem", err)
			}
			return
		}
		if in.Values == nil {
			t.Fatal("nil values on success")
		}
	})
}

// FuzzParseList: any query string parses or is a 400 problem.
func FuzzParseList(f *testing.F) {
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
		req, err := ParseList(values, filters)
		if err != nil {
			if p, ok := err.(*Problem); !ok || p.Status != 400 {
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
