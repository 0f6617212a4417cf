package geocode

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/matryer/is"
)

// nominatimServer answers /search with the given JSON, or with the status
// when it is not 200, and records the last request.
func nominatimServer(t *testing.T, status int, body string, last **http.Request) *Nominatim {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*last = r
		if status != http.StatusOK {
			http.Error(w, "no", status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	n, err := NewNominatim(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestNominatim(t *testing.T) {
	address := Address{Text: "Storgatan 1, 111 22 Stockholm, Sverige", City: "Stockholm"}
	cases := []struct {
		name    string
		status  int
		body    string
		want    Position
		failure bool
	}{
		{"one place", 200, `[{"lat": "59.3326", "lon": "18.0649", "display_name": "Storgatan, Stockholm"}]`,
			Position{Status: "Found", Latitude: 59.3326, Longitude: 18.0649, SourceType: "Address", Provider: "nominatim"}, false},
		{"two places: the first, ambiguous", 200, `[{"lat": "59.1", "lon": "18.1"}, {"lat": "57.7", "lon": "11.9"}]`,
			Position{Status: "Found", Latitude: 59.1, Longitude: 18.1, SourceType: "Address", Provider: "nominatim", Ambiguous: true}, false},
		{"no place", 200, `[]`, Position{Status: "AddressNotFound", Provider: "nominatim"}, false},
		{"server error", 503, "", Position{}, true},
		{"not JSON", 200, `<html>`, Position{}, true},
		{"bad coordinates", 200, `[{"lat": "north", "lon": "18"}]`, Position{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			var last *http.Request
			pos, err := nominatimServer(t, tc.status, tc.body, &last).Geocode(context.Background(), address)
			is.Equal(last.URL.Path, "/search")
			q := last.URL.Query()
			is.Equal(q.Get("format"), "json")
			is.Equal(q.Get("q"), address.Text)
			is.Equal(last.UserAgent(), DefaultUserAgent) // public servers require one
			if tc.failure {
				is.True(err != nil)
				return
			}
			is.NoErr(err)
			is.Equal(pos, tc.want)
		})
	}
}

func TestNew(t *testing.T) {
	is := is.New(t)
	for name, want := range map[string]Geocoder{"": Gazetteer{}, "gazetteer": Gazetteer{}, "none": None{}} {
		g, err := New(name, "")
		is.NoErr(err)
		is.Equal(g, want)
	}
	g, err := New("nominatim", "https://nominatim.example.org")
	is.NoErr(err)
	is.Equal(g.(*Nominatim).BaseURL, "https://nominatim.example.org")
	for _, bad := range [][2]string{{"nominatim", ""}, {"nominatim", "ftp://x"}, {"google", ""}} {
		_, err := New(bad[0], bad[1])
		is.True(err != nil) // refused with a message
	}
}
