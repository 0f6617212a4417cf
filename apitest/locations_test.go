package apitest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/geocode"
	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// Positions of tasks (spec 2.5, 4.3 rule 1) over HTTP.

func location(t *testing.T, env *Env, nr, query string) engine.Location {
	t.Helper()
	resp := env.Get(KeyPath("tasks", nr, "/location") + query)
	Expect(t, resp, http.StatusOK)
	var loc engine.Location
	resp.JSON(t, &loc)
	return loc
}

func TestTaskLocations(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{}) // the default geocoder: the engine's offline gazetteer

		t.Run("located from the task's customer", func(t *testing.T) {
			is := is.New(t)
			nr := newTask(t, env, map[string]any{"customerNr": "1002"})
			loc := location(t, env, nr, "")
			is.Equal(loc.Status, "Pending") // never located
			is.Equal(loc.Latitude, nil)
			loc = location(t, env, nr, "?locate=true")
			is.Equal(loc.Status, "Found")
			is.True(loc.Latitude != nil && loc.Longitude != nil)
			is.Equal(loc.Fixed, false)
			is.Equal(loc, location(t, env, nr, "")) // stored
		})

		t.Run("an object before the customer", func(t *testing.T) {
			is := is.New(t)
			// Object 101 belongs to customer 1001 (Stockholm); the task's customer 1020 is elsewhere.
			byObject := location(t, env, newTask(t, env, map[string]any{"customerNr": "1020", "object1Nr": "101"}), "?locate=true")
			ofObjectCustomer := location(t, env, newTask(t, env, map[string]any{"customerNr": "1001"}), "?locate=true")
			ofTaskCustomer := location(t, env, newTask(t, env, map[string]any{"customerNr": "1020"}), "?locate=true")
			is.Equal(byObject.Address, ofObjectCustomer.Address)
			is.True(byObject.Address != ofTaskCustomer.Address)
		})

		t.Run("a pin survives locate and force", func(t *testing.T) {
			is := is.New(t)
			nr := newTask(t, env, map[string]any{"customerNr": "1003"})
			location(t, env, nr, "?locate=true")
			resp := env.Do(Request{Method: http.MethodPut, Path: KeyPath("tasks", nr, "/location"), Key: env.Key,
				Body: map[string]any{"latitude": 57.7, "longitude": 11.97, "address": "Lastkajen, port 3"}})
			Expect(t, resp, http.StatusOK)
			loc := location(t, env, nr, "?locate=true&force=true")
			is.Equal(*loc.Latitude, 57.7)
			is.Equal(*loc.Longitude, 11.97)
			is.Equal(loc.Address, "Lastkajen, port 3")
			is.Equal(loc.Fixed, true)
		})

		t.Run("demo pins", func(t *testing.T) {
			is := is.New(t)
			pinned := 0
			for _, item := range env.page(t, "/v1/tasks?limit=500").Items {
				loc := location(t, env, item["Nr"].(string), "")
				if loc.Fixed {
					pinned++
					is.True(loc.Latitude != nil)
					is.Equal(location(t, env, item["Nr"].(string), "?locate=true&force=true"), loc)
				}
			}
			is.True(pinned >= 3)
		})
	})
}

// TestTaskLocationsWithNominatim runs the engine with its Nominatim
// provider against a local server.
func TestTaskLocationsWithNominatim(t *testing.T) {
	var calls atomic.Int32
	var answer atomic.Value // JSON of the search results, or "" for a server error
	answer.Store(`[{"lat": "59.3326", "lon": "18.0649", "display_name": "Storgatan, Stockholm"}]`)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" || r.URL.Query().Get("q") == "" || r.UserAgent() == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		body := answer.Load().(string)
		if body == "" {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set(runtime.HeaderContentType, "application/json")
		json.NewEncoder(w).Encode(json.RawMessage(body))
	}))
	defer server.Close()
	geocoder, err := geocode.New(geocode.NameNominatim, server.URL)
	if err != nil {
		t.Fatal(err)
	}

	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := StartWith(t, b, runtime.Config{}, reference.Options{Geocoder: geocoder})
		answer.Store(`[{"lat": "59.3326", "lon": "18.0649", "display_name": "Storgatan, Stockholm"}]`)
		nr := newTask(t, env, map[string]any{"customerNr": "1001"})
		loc := location(t, env, nr, "?locate=true")
		is.Equal(loc.Status, "Found")
		is.Equal(*loc.Latitude, 59.3326)
		is.Equal(loc.Provider, "nominatim")

		// The provider fails: Error, and the stored position is kept.
		answer.Store("")
		failed := location(t, env, nr, "?locate=true&force=true")
		is.Equal(failed.Status, "Error")
		is.Equal(location(t, env, nr, ""), loc)

		// Without force, a stored position is read, not located again.
		before := calls.Load()
		location(t, env, nr, "?locate=true")
		is.Equal(calls.Load(), before)

		answer.Store(`[]`)
		unknown := location(t, env, newTask(t, env, map[string]any{"customerNr": "1002"}), "?locate=true")
		is.Equal(unknown.Status, "AddressNotFound")
		is.Equal(unknown.Latitude, nil)
	})
}
