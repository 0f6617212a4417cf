package decode

import (
	"encoding/json"
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
		b.Lines, err = Lines[sampleBody](raw, "lines", sampleShape)
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
		in, err := Input[sampleBody](data, sampleShape)
		if err != nil {
			p, ok := err.(*problem.Problem)
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
