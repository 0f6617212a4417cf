package apitest

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

func TestLimitsAndProblems(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		t.Run("body over the limit is 413", func(t *testing.T) {
			is := is.New(t)
			env := Start(t, b, runtime.Config{MaxBody: 1 << 10})
			big := `{"name":"` + strings.Repeat("x", 2<<10) + `"}`
			resp := env.Post("/v1/customers", big)
			is.Equal(resp.Status, http.StatusRequestEntityTooLarge)
			is.Equal(resp.Problem(t).Title, "payload_too_large")
		})
		t.Run("too many calls is 429 with Retry-After", func(t *testing.T) {
			is := is.New(t)
			env := Start(t, b, runtime.Config{RateLimit: 1, RateBurst: 3})
			var last Response
			for range 5 {
				last = env.Get("/v1/whoami")
			}
			is.Equal(last.Status, http.StatusTooManyRequests)
			is.Equal(last.Problem(t).Title, "rate_limited")
			secs, err := strconv.Atoi(last.Header.Get(runtime.HeaderRetryAfter))
			is.NoErr(err)
			is.True(secs >= 1)
			Expect(t, env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: env.OtherKey}), http.StatusOK) // per key
		})
		env := Start(t, b, runtime.Config{})
		t.Run("request ids", func(t *testing.T) {
			is := is.New(t)
			mine := env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: env.Key, Headers: map[string]string{runtime.HeaderRequestID: "job-42:run.7_a"}})
			is.Equal(mine.Header.Get(runtime.HeaderRequestID), "job-42:run.7_a")
			tooLong := env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: env.Key, Headers: map[string]string{runtime.HeaderRequestID: strings.Repeat("a", 65)}})
			is.True(tooLong.Header.Get(runtime.HeaderRequestID) != strings.Repeat("a", 65))
			is.True(tooLong.Header.Get(runtime.HeaderRequestID) != "")
			bad := env.Do(Request{Method: "GET", Path: "/v1/whoami", Key: env.Key, Headers: map[string]string{runtime.HeaderRequestID: "has space"}})
			is.True(bad.Header.Get(runtime.HeaderRequestID) != "has space")
			health := env.Do(Request{Method: "GET", Path: "/health"})
			Expect(t, health, http.StatusOK)
			is.True(health.Header.Get(runtime.HeaderRequestID) != "")
		})
		t.Run("problem shape", func(t *testing.T) {
			is := is.New(t)
			resp := env.Get("/v1/customers/no-such-customer")
			is.Equal(resp.Status, http.StatusNotFound)
			p := resp.Problem(t)
			is.Equal(p.Type, runtime.DefaultProblemBase+"/not_found")
			is.Equal(p.Title, "not_found")
			is.Equal(p.ValidValues, nil) // 404 never carries validValues
			unknown := env.Get("/v1/nothing-here")
			is.Equal(unknown.Status, http.StatusNotFound)
			unknown.Problem(t)
		})
		t.Run("content type must be JSON", func(t *testing.T) {
			is := is.New(t)
			resp := env.Do(Request{Method: "POST", Path: "/v1/customers", Key: env.Key, Body: "name=x", Headers: map[string]string{runtime.HeaderContentType: "application/x-www-form-urlencoded"}, SkipRequestValidation: true})
			is.Equal(resp.Status, http.StatusUnsupportedMediaType)
		})
	})
}

func TestExtraFields(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		resp := env.Get("/v1/customers/extra-fields")
		Expect(t, resp, http.StatusOK)
		var defs struct {
			Items []struct {
				Key, Name, Category, Type    string
				Writable, ReadOnly, Computed bool
				Options                      []string
			}
			Count int
		}
		resp.JSON(t, &defs)
		is := is.New(t)
		is.Equal(defs.Count, len(defs.Items))
		var combo, date, computed, readOnly string
		var options []string
		for _, d := range defs.Items {
			switch {
			case d.Computed:
				computed = d.Key
				is.True(!d.Writable)
			case d.ReadOnly:
				readOnly = d.Key
				is.True(!d.Writable)
			case d.Type == "Combo" && d.Writable:
				combo, options = d.Key, d.Options
			case d.Type == "Date" && d.Writable:
				date = d.Key
			}
		}
		is.True(combo != "" && date != "" && computed != "" && readOnly != "" && len(options) > 0)

		t.Run("every key is read, empty as empty string", func(t *testing.T) {
			is := is.New(t)
			created := env.Post("/v1/customers", map[string]any{"name": "Extra AS", "extraFields": map[string]string{combo: options[0], date: "2026-12-24"}})
			Expect(t, created, http.StatusCreated)
			ef := created.Object(t)["ExtraFields"].(map[string]any)
			is.Equal(len(ef), len(defs.Items))
			is.Equal(ef[combo], options[0])
			is.Equal(ef[date], "2026-12-24")
			for _, d := range defs.Items {
				_, present := ef[d.Key]
				is.True(present)
			}
		})
		refusals := []struct {
			name   string
			extra  map[string]string
			detail string
			valid  bool
		}{
			{"unknown key", map[string]string{"No.Such": "x"}, "No.Such", true},
			{"computed", map[string]string{computed: "x"}, computed, false},
			{"read only", map[string]string{readOnly: "x"}, readOnly, false},
			{"text in a date", map[string]string{date: "next tuesday"}, date, false},
			{"not an option", map[string]string{combo: "Not-An-Option"}, combo, true},
		}
		for _, tc := range refusals {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				resp := env.Post("/v1/customers", map[string]any{"name": "Refused AS", "extraFields": tc.extra})
				is.Equal(resp.Status, http.StatusUnprocessableEntity)
				p := resp.Problem(t)
				is.Equal(p.Title, "command_failed")
				is.True(strings.Contains(p.Detail, tc.detail))
				is.Equal(len(p.ValidValues) > 0, tc.valid)
			})
		}
	})
}
