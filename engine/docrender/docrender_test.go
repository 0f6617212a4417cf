package docrender

import (
	"bytes"
	"compress/zlib"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/engine"
)

func TestHTMLLines(t *testing.T) {
	is := is.New(t)
	got := htmlLines(`<html><head><title>T</title><style>p { color: red }</style></head><body>
		<h1>Servicerapport  10001</h1><p>Kund: Brf &amp; Co<br>Rad två</p>
		<script>alert("x")</script>
		<ul><li>Filter</li><li>Larm</li></ul>
		<table><tr><th>Planerat</th><td>2025-05-05 &ndash; 2025-05-06</td></tr></table>
		<P CLASS="x">Stora bokstäver</P>text efter`)
	is.Equal(got, []Line{
		{Text: "Servicerapport 10001", Heading: true},
		{Text: "Kund: Brf & Co"},
		{Text: "Rad två"},
		{Text: "• Filter"},
		{Text: "• Larm"},
		{Text: "Planerat | 2025-05-05 – 2025-05-06"},
		{Text: "Stora bokstäver"},
		{Text: "text efter"},
	})
}

func TestFillTemplate(t *testing.T) {
	is := is.New(t)
	rec := engine.Record{"Nr": "10001", "CustomerName": "Brf <Solberga>", "EstimatedTime": 2.5,
		"UserSigns": []string{"ANLI", "MASV"}, "ExtraFields": map[string]string{"Visit.Type": "Service"}}
	got := fillTemplate(`<h1>{{Nr}}</h1><p>{{ CustomerName }}, {{EstimatedTime}} h, {{UserSigns}}, {{ExtraFields.Visit.Type}}, {{Unknown}}</p>`, rec)
	is.Equal(got, `<h1>10001</h1><p>Brf &lt;Solberga&gt;, 2.5 h, ANLI, MASV, Service, {{Unknown}}</p>`)
}

// TestRenderPDF reads the text back out of the PDF's page content.
func TestRenderPDF(t *testing.T) {
	is := is.New(t)
	pdf, err := PDF("Servicerapport", []Line{{Text: "Kund", Heading: true}, {Text: "Brf Åkerlund, Göteborg"}}, time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC))
	is.NoErr(err)
	is.True(bytes.HasPrefix(pdf, []byte("%PDF-")))
	var text []byte // every stream, inflated
	for rest := pdf; ; {
		start := bytes.Index(rest, []byte(">>\nstream\n"))
		if start < 0 {
			break
		}
		rest = rest[start+len(">>\nstream\n"):]
		end := bytes.Index(rest, []byte("endstream"))
		if r, err := zlib.NewReader(bytes.NewReader(rest[:end])); err == nil {
			inflated, _ := io.ReadAll(r)
			text = append(text, inflated...)
		}
		rest = rest[end:]
	}
	for _, want := range []string{"(Servicerapport)Tj", "(Kund)Tj", "(Brf \xc5kerlund, G\xf6teborg)Tj"} { // Windows-1252
		is.True(bytes.Contains(text, []byte(want)))
	}
	again, err := PDF("Servicerapport", []Line{{Text: "Kund", Heading: true}, {Text: "Brf Åkerlund, Göteborg"}}, time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC))
	is.NoErr(err)
	is.Equal(again, pdf) // the same document renders the same bytes
}

func TestOpenLink(t *testing.T) {
	links := Links{Timeout: 200 * time.Millisecond}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/manual.txt":
			w.Write([]byte("manual"))
		case "/slow":
			// Answers (200, empty) only after 2 s, 10 times links.Timeout:
			// without the timeout this case would succeed and fail the test.
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "drawing.pdf")
	if err := os.WriteFile(file, []byte("%PDF-1.4 drawing"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name, source, want string
	}{
		{"http", srv.URL + "/manual.txt", "manual"},
		{"local path", file, "%PDF-1.4 drawing"},
		{"file URL", "file://" + file, "%PDF-1.4 drawing"},
		{"not found", srv.URL + "/gone.pdf", ""},
		{"server down", closed.URL + "/manual.txt", ""},
		{"too slow", srv.URL + "/slow", ""},
		{"missing file", filepath.Join(dir, "missing.pdf"), ""},
		{"a directory", dir, ""},
		{"file server out of reach", `\\filserver\ritningar\plan.pdf`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			body, size, err := links.Open(context.Background(), tc.source)
			if tc.want == "" {
				is.True(err != nil) // for "too slow": Timeout ended the wait
				t.Log(err)
				return
			}
			is.NoErr(err)
			defer body.Close()
			got, err := io.ReadAll(body)
			is.NoErr(err)
			is.Equal(string(got), tc.want)
			is.Equal(size, int64(len(tc.want)))
		})
	}
}

// TestRecordLines: a print shows the set fields in catalog order, skips
// empty ones and objects, then the extra fields by key.
func TestRecordLines(t *testing.T) {
	is := is.New(t)
	cat, err := catalog.Builtin()
	is.NoErr(err)
	rec := engine.Record{"Nr": "10001", "TaskText": "Årsservice", "ActionText": "", "EstimatedTime": 2.5,
		"UserSigns": []string{"ANLI", "MASV"}, "AssigneeStatuses": map[string]string{"ANLI": "Sent"},
		"ExtraFields": map[string]string{"Visit.Type": "Service", "follow_up_date": "", "Internal.Ref": "INT-1"}}
	got := recordLines(cat.Register("tasks"), rec)
	is.Equal(got, []Line{
		{Text: "Nr: 10001"},
		{Text: "TaskText: Årsservice"},
		{Text: "UserSigns: ANLI, MASV"},
		{Text: "EstimatedTime: 2.5"},
		{Text: "ExtraFields", Heading: true},
		{Text: "Internal.Ref: INT-1"},
		{Text: "Visit.Type: Service"},
	})
}
