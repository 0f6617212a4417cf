package recordjson

import (
	"encoding/json"
	"math"
	"testing"

	"fieldapi/engine"
)

// part and partLine are views as the generator writes them.
type part struct {
	Nr     *string           `json:"Nr"`
	Price  *float64          `json:"Price"`
	Active *bool             `json:"Active"`
	Tags   []string          `json:"Tags"`
	Lines  []partLine        `json:"Lines"`
	Extra  map[string]string `json:"Extra"`
}

type partLine struct {
	Id  *string  `json:"Id"`
	Qty *float64 `json:"Qty"`
}

func viewPartLine(rec engine.Record) partLine {
	return partLine{Id: rec.Text("Id"), Qty: rec.Number("Qty")}
}

func viewPart(rec engine.Record) part {
	lines := rec.Lines("Lines")
	views := make([]partLine, len(lines))
	for i, l := range lines {
		views[i] = viewPartLine(l)
	}
	return part{Nr: rec.Text("Nr"), Price: rec.Number("Price"), Active: rec.Bool("Active"), Tags: rec.List("Tags"),
		Lines: views, Extra: rec.Object("Extra")}
}

var partJSON = &Record{Members: []Member{
	{Name: "Nr"}, {Name: "Price", Kind: Number}, {Name: "Active", Kind: Bool}, {Name: "Tags", Kind: List},
	{Name: "Lines", Kind: Lines, Lines: &Record{Members: []Member{{Name: "Id"}, {Name: "Qty", Kind: Number}}}},
	{Name: "Extra", Kind: Object},
}}

// TestAsEncodingJSON: every value a record may hold, and some it should
// not, writes what encoding/json writes for the view.
func TestAsEncodingJSON(t *testing.T) {
	texts := []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rret\bback\fform", "\x00\x01\x1f\x7f",
		"åäö ✓ 日本", "bad \xff utf8 \xc3", "sep \u2028 and \u2029", "emoji 🛠️"}
	numbers := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 123456789, 1e20, 1e21, -1e21, 1.5e300, 5e-324, math.MaxFloat64}
	var recs []engine.Record
	for i, s := range texts {
		recs = append(recs, engine.Record{"Nr": s, "Tags": []string{s, "x"}, "Extra": map[string]string{s: s, "a": "b"},
			"Lines": []engine.Record{{"Id": s, "Qty": numbers[i%len(numbers)]}, {}}})
	}
	for _, n := range numbers {
		recs = append(recs, engine.Record{"Price": n, "Active": n > 0})
	}
	recs = append(recs,
		engine.Record{},
		engine.Record{"Nr": nil, "Price": nil, "Active": nil, "Tags": nil, "Extra": nil, "Lines": nil},
		engine.Record{"Nr": 12, "Price": int64(3), "Active": "yes", "Tags": "x", "Extra": map[string]any{}, "Lines": []any{}},
		engine.Record{"Tags": []string(nil), "Extra": map[string]string(nil), "Lines": []engine.Record(nil)},
		engine.Record{"Tags": []string{}, "Extra": map[string]string{}, "Lines": []engine.Record{}, "Other": "not a member"},
	)
	for _, rec := range recs {
		checkAsView(t, rec)
	}
}

// checkAsView: rec writes what encoding/json writes for its view.
func checkAsView(t *testing.T, rec engine.Record) {
	t.Helper()
	want, err := json.Marshal(viewPart(rec))
	if err != nil {
		t.Fatal(err)
	}
	got, err := partJSON.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%v:\n got %s\nwant %s", rec, got, want)
	}
}

// TestUnsupportedNumber: NaN and infinities fail, as json.Marshal fails.
func TestUnsupportedNumber(t *testing.T) {
	for _, n := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, want := json.Marshal(viewPart(engine.Record{"Price": n}))
		_, err := partJSON.Append(nil, engine.Record{"Price": n})
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%v: error %v, json.Marshal's %v", n, err, want)
		}
	}
}

// FuzzAsEncodingJSON: any text and any finite number write what
// encoding/json writes for the view (go test -fuzz FuzzAsEncodingJSON
// ./runtime/recordjson; the seeds run with go test).
func FuzzAsEncodingJSON(f *testing.F) {
	f.Add("plain", 1.5)
	f.Add("<&>\u2028\x00\xff", 1e21)
	f.Add("\"\\\t", -9.99e-7)
	f.Fuzz(func(t *testing.T, s string, n float64) {
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return
		}
		checkAsView(t, engine.Record{"Nr": s, "Price": n, "Tags": []string{s}, "Extra": map[string]string{s: s},
			"Lines": []engine.Record{{"Id": s, "Qty": n}}})
	})
}
