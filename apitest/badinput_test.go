package apitest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/generated"
	"fieldapi/runtime"
)

// badBodies are malformed or hostile bodies every write must refuse with a
// 4xx problem: never a 500, never a panic.
var badBodies = []string{
	``, `null`, `[]`, `"text"`, `12`, `{`, `{"a":1}{"b":2}`,
	`{"name": {"nested": {"deeper": []}}}`,
	`{"extraFields": {"a": 1}}`, `{"extraFields": "x"}`, `{"extraFields": null}`,
	`{"materials": "x"}`, `{"materials": [1, 2]}`, `{"times": [{"hours": "1"}]}`, `{"lines": [null]}`, `{"contacts": [[]]}`,
	`{"status": 7}`, `{"userSigns": "ANLI"}`, `{"userSigns": [1]}`,
	`{"latitude": "north", "longitude": 1}`, `{"latitude": 1e400, "longitude": 0}`,
	`{"name": "a.txt", "contentBase64": "***"}`, `{"text": ""}`,
	"{\"name\": \"\xff\xfe\"}", `{"planStartDate": "2026-13-45"}`, `{"quantity": 1e309}`,
	`{"customerNr": "` + strings.Repeat("9", 5000) + `"}`,
}

// TestBadInputNeverFails5xx sends every bad body to every write route of
// the generated route table, on a record that exists.
func TestBadInputNeverFails5xx(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) { sendBadBodies(t, Start(t, b, runtime.Config{})) })
}

func sendBadBodies(t *testing.T, env *Env) {
	for _, route := range generated.Routes() {
		if route.Method == http.MethodGet {
			continue
		}
		register := strings.Split(route.Path, "/")[2]
		key, ok := env.FirstKey(register, env.Key)
		if !ok {
			key = "1"
		}
		path := pathFor(route, escape(key))
		t.Run(route.Method+" "+route.Path, func(t *testing.T) {
			is := is.New(t)
			for _, body := range badBodies {
				resp := env.Do(Request{Method: route.Method, Path: path, Key: env.Key, Body: body, SkipRequestValidation: true})
				if resp.Status >= 500 || resp.Status < 400 && resp.Status != http.StatusOK && resp.Status != http.StatusCreated {
					t.Errorf("%s %s with %.60q: status %d, body %s", route.Method, path, body, resp.Status, resp.Body)
					continue
				}
				if resp.Status >= 400 {
					is.Equal(resp.Problem(t).Status, resp.Status)
				}
			}
		})
	}
}
