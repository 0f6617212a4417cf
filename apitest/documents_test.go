package apitest

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// Documents on tasks (spec 4.3 rules 9 and 10) over HTTP.

// demoDocumentTask is the demo task that carries a document of every kind.
const demoDocumentTask = "10001"

// download reads a document and returns its body, Content-Type and the
// file name of its Content-Disposition.
func download(t *testing.T, env *Env, nr string, id any) (body []byte, contentType, filename string) {
	t.Helper()
	resp := env.Get(KeyPath("tasks", nr, fmt.Sprintf("/documents/%v", id)))
	Expect(t, resp, http.StatusOK)
	disposition, params, err := mime.ParseMediaType(resp.Header.Get(runtime.HeaderContentDisposition))
	if err != nil || disposition != "attachment" {
		t.Fatalf("Content-Disposition %q: %v", resp.Header.Get(runtime.HeaderContentDisposition), err)
	}
	return resp.Body, resp.Header.Get(runtime.HeaderContentType), params["filename"]
}

// documents lists a task's documents.
func documents(t *testing.T, env *Env, nr string) []map[string]any {
	t.Helper()
	resp := env.Get(KeyPath("tasks", nr, "/documents"))
	Expect(t, resp, http.StatusOK)
	var list struct {
		Items []map[string]any
		Count int
	}
	resp.JSON(t, &list)
	if list.Count != len(list.Items) {
		t.Fatalf("count %d, %d items", list.Count, len(list.Items))
	}
	return list.Items
}

func smallPNG(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTaskDocuments(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		t.Run("uploads", func(t *testing.T) { testDocumentUploads(t, env) })
		t.Run("demo kinds", func(t *testing.T) { testDocumentKinds(t, env) })
	})
}

func testDocumentUploads(t *testing.T, env *Env) {
	nr := newTask(t, env, map[string]any{"customerNr": "1012"})
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	cases := []struct {
		name, file string
		content    []byte
		wantType   string
		wantFile   string
		wantDoc    string
	}{
		{"a photo", "Foto efter.png", smallPNG(t), "image/png", "Foto efter.png", "PNG"},
		{"no extension gets the content's", "Servicerapport", pdf, "application/pdf", "Servicerapport.pdf", "PDF"},
		{"the content decides the type, not the name", "bild.txt", smallPNG(t), "image/png", "bild.txt", "PNG"},
		{"text", "anteckning", []byte("Nyckel hämtad i receptionen.\n"), "text/plain; charset=utf-8", "anteckning.txt", "TXT"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			resp := env.Post(KeyPath("tasks", nr, "/documents"), map[string]any{
				"name": tc.file, "contentBase64": base64.StdEncoding.EncodeToString(tc.content)})
			Expect(t, resp, http.StatusCreated)
			reply := resp.Object(t)
			is.Equal(reply["nr"], nr)
			is.Equal(reply["name"], tc.file)
			id, isNumber := reply["id"].(float64)
			is.True(isNumber && id > 0) // the id is a number

			var item map[string]any
			for _, d := range documents(t, env, nr) {
				if d["Id"] == id {
					item = d
				}
			}
			is.True(item != nil)
			is.Equal(item["Name"], tc.file)
			is.Equal(item["Kind"], "embedded")
			is.Equal(item["DocType"], tc.wantDoc)
			is.Equal(item["HasContent"], true)
			is.Equal(item["IsInternal"], false)
			is.True(item["Modified"] != "")

			body, contentType, filename := download(t, env, nr, id)
			is.Equal(body, tc.content) // the bytes as stored
			is.Equal(contentType, tc.wantType)
			is.Equal(filename, tc.wantFile)
		})
	}

	t.Run("refused", func(t *testing.T) {
		is := is.New(t)
		post := func(path string, body map[string]any) Response { return env.SkipRequestValidation().Post(path, body) }
		docs := KeyPath("tasks", nr, "/documents")
		resp := post(docs, map[string]any{"name": "a.txt", "contentBase64": "not base64!"})
		Expect(t, resp, http.StatusBadRequest)
		is.True(strings.Contains(resp.Problem(t).Detail, "base64"))
		Expect(t, post(docs, map[string]any{"name": "../a.txt", "contentBase64": "aGVq"}), http.StatusBadRequest)
		Expect(t, post(docs, map[string]any{"name": "a.txt"}), http.StatusBadRequest)
		Expect(t, post(KeyPath("tasks", "999999", "/documents"), map[string]any{"name": "a.txt", "contentBase64": "aGVq"}), http.StatusNotFound)

		someID := documents(t, env, nr)[0]["Id"]
		for _, path := range []string{
			KeyPath("tasks", nr, "/documents/999999"),                                // no such document
			KeyPath("tasks", nr, "/documents/abc"),                                   // no such id
			KeyPath("tasks", demoDocumentTask, fmt.Sprintf("/documents/%v", someID)), // another task's document
		} {
			Expect(t, env.SkipRequestValidation().Get(path), http.StatusNotFound)
		}
		other := env.Do(Request{Method: http.MethodGet, Path: KeyPath("tasks", nr, fmt.Sprintf("/documents/%v", someID)), Key: env.OtherKey})
		Expect(t, other, http.StatusNotFound) // another company
	})
}

func testDocumentKinds(t *testing.T, env *Env) {
	byName := map[string]map[string]any{}
	kinds := map[string]int{}
	for _, d := range documents(t, env, demoDocumentTask) {
		byName[d["Name"].(string)] = d
		kinds[d["Kind"].(string)]++
	}
	for _, kind := range []string{"embedded", "link", "html", "other"} {
		if kinds[kind] == 0 {
			t.Fatalf("demo task %s has no %s document: %v", demoDocumentTask, kind, byName)
		}
	}
	cases := []struct {
		name       string
		kind       string
		hasContent bool
		wantType   string
		wantFile   string
		contains   string
	}{
		{"Foto före.png", "embedded", true, "image/png", "Foto före.png", "PNG"},
		{"Mätprotokoll.txt", "embedded", true, "text/plain; charset=utf-8", "Mätprotokoll.txt", "45 °C"},
		{"Servicehandbok NIBE F1255", "link", false, "text/plain; charset=utf-8", "Servicehandbok NIBE F1255.txt", "NIBE F1255"},
		{"Servicerapport", "html", true, "application/pdf", "Servicerapport.pdf", "%PDF-"},
		{"Arbetsorder (utskrift)", "other", false, "application/pdf", "Arbetsorder (utskrift).pdf", "%PDF-"},
	}
	for _, tc := range cases {
		t.Run(tc.kind+" "+tc.name, func(t *testing.T) {
			is := is.New(t)
			d := byName[tc.name]
			is.True(d != nil)
			is.Equal(d["Kind"], tc.kind)
			is.Equal(d["HasContent"], tc.hasContent)
			body, contentType, filename := download(t, env, demoDocumentTask, d["Id"])
			is.Equal(contentType, tc.wantType) // sniffed from the content
			is.Equal(filename, tc.wantFile)
			is.True(bytes.Contains(body, []byte(tc.contains)))
			if tc.wantType == "application/pdf" {
				is.True(bytes.HasPrefix(body, []byte("%PDF-")))
			}
		})
	}
	t.Run("unreachable link", func(t *testing.T) {
		is := is.New(t)
		d := byName["Planritning.pdf"]
		is.Equal(d["Kind"], "link")
		resp := env.Get(KeyPath("tasks", demoDocumentTask, fmt.Sprintf("/documents/%v", d["Id"])))
		p := refusal(t, resp)
		is.True(strings.Contains(p.Detail, "cannot be read"))
	})
}
