// Package geocode places addresses on the map for the engine's record
// locations: an offline gazetteer of Nordic city centres (the default, so
// demo data and tests need no network), a Nominatim-compatible HTTP server,
// or none at all. New picks one by the name a command-line flag passes.
package geocode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Geocoder places the address a record is located from.
type Geocoder interface {
	// Geocode places an address. An address the provider does not know is
	// a Position with Status AddressNotFound, not an error; an error means
	// the provider failed, and the engine stores nothing.
	Geocode(ctx context.Context, a Address) (Position, error)
}

// Address is what a record is located from.
type Address struct {
	Text string // the whole address on one line, as the location shows it
	City string
}

// The statuses of a Position.
const (
	Found           = "Found"           // the address was placed
	AddressNotFound = "AddressNotFound" // the provider does not know the address
	Pending         = "Pending"         // the provider does not locate: the record waits for a pinned position
)

// Position is a geocoder's answer.
type Position struct {
	Status     string // Found, AddressNotFound, or Pending when the provider does not locate
	Latitude   float64
	Longitude  float64
	SourceType string // what the position stands for, e.g. CityCentre or Address
	Provider   string
	Ambiguous  bool // the address matched more than one place; the first is used
}

// The geocoders New knows by name.
const (
	NameGazetteer = "gazetteer"
	NameNominatim = "nominatim"
	NameNone      = "none"
)

// New returns the geocoder with the given name (what a command-line
// flag would pass): gazetteer (or ""), nominatim with the base URL of a
// Nominatim-compatible server, or none.
func New(name, baseURL string) (Geocoder, error) {
	switch name {
	case "", NameGazetteer:
		return Gazetteer{}, nil
	case NameNone:
		return None{}, nil
	case NameNominatim:
		if baseURL == "" {
			return nil, fmt.Errorf("geocoder nominatim needs the base URL of a Nominatim server")
		}
		return NewNominatim(baseURL)
	}
	return nil, fmt.Errorf("unknown geocoder %q: want %s, %s or %s", name, NameGazetteer, NameNominatim, NameNone)
}

// None does not geocode: records stay Pending until a position is
// pinned (PUT …/location).
type None struct{}

// Geocode answers Pending.
func (None) Geocode(context.Context, Address) (Position, error) {
	return Position{Status: Pending, Provider: NameNone}, nil
}

// Gazetteer places an address at the centre of its city when the city is
// in a small built-in list of Nordic cities (those of the demo data).
type Gazetteer struct{}

const gazetteerProvider = "fieldapi-gazetteer"

// Geocode looks the address's city up.
func (Gazetteer) Geocode(_ context.Context, a Address) (Position, error) {
	c, ok := gazetteer[strings.ToLower(strings.TrimSpace(a.City))]
	if !ok {
		return Position{Status: AddressNotFound, Provider: gazetteerProvider}, nil
	}
	return Position{Status: Found, Latitude: c.lat, Longitude: c.lon, SourceType: "CityCentre", Provider: gazetteerProvider}, nil
}

// gazetteer holds the centres of the cities of the demo data (read only).
var gazetteer = map[string]struct{ lat, lon float64 }{
	"stockholm": {59.3293, 18.0686}, "göteborg": {57.7089, 11.9746}, "malmö": {55.6050, 13.0038},
	"uppsala": {59.8586, 17.6389}, "västerås": {59.6099, 16.5448}, "örebro": {59.2753, 15.2134},
	"linköping": {58.4108, 15.6214}, "helsingborg": {56.0465, 12.6945}, "jönköping": {57.7826, 14.1618},
	"norrköping": {58.5877, 16.1924}, "umeå": {63.8258, 20.2630}, "luleå": {65.5848, 22.1547},
	"oslo": {59.9139, 10.7522}, "bergen": {60.3913, 5.3221}, "trondheim": {63.4305, 10.3951},
	"stavanger": {58.9700, 5.7331}, "tromsø": {69.6492, 18.9553}, "drammen": {59.7439, 10.2045},
	"kristiansand": {58.1599, 8.0182}, "bodø": {67.2804, 14.4049},
}

// Nominatim geocodes with a Nominatim-compatible HTTP server (OpenStreetMap's
// own, or one run beside the engine): GET {BaseURL}/search?format=json&q=...
// Public servers require an identifying User-Agent and limit the rate.
type Nominatim struct {
	BaseURL   string
	UserAgent string
	Client    *http.Client
}

// DefaultUserAgent identifies the engine to a geocoding server.
const DefaultUserAgent = "fieldapi-reference-engine/1.0"

// NewNominatim returns a Nominatim provider with a 10-second timeout.
func NewNominatim(baseURL string) (*Nominatim, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("geocoder URL %q: want http(s)://host[/path]", baseURL)
	}
	return &Nominatim{
		BaseURL:   strings.TrimRight(baseURL, "/"),
		UserAgent: DefaultUserAgent,
		Client:    &http.Client{Timeout: 10 * time.Second},
	}, nil
}

// nominatimPlace is one result of a search; coordinates come as text.
type nominatimPlace struct {
	Lat         string `json:"lat"`
	Lon         string `json:"lon"`
	DisplayName string `json:"display_name"`
}

// Geocode searches the address; the first of several matches is used and
// the position marked Ambiguous.
func (n *Nominatim) Geocode(ctx context.Context, a Address) (Position, error) {
	pos := Position{Provider: NameNominatim}
	// Two results are enough to tell an ambiguous address.
	query := url.Values{"format": {"json"}, "limit": {"2"}, "q": {a.Text}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.BaseURL+"/search?"+query.Encode(), nil)
	if err != nil {
		return pos, err
	}
	req.Header.Set("User-Agent", n.UserAgent)
	req.Header.Set("Accept", "application/json")
	resp, err := n.Client.Do(req)
	if err != nil {
		return pos, fmt.Errorf("geocoder: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return pos, fmt.Errorf("geocoder: %s answered %s", n.BaseURL, resp.Status)
	}
	var places []nominatimPlace
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&places); err != nil {
		return pos, fmt.Errorf("geocoder: unreadable answer: %w", err)
	}
	if len(places) == 0 {
		pos.Status = AddressNotFound
		return pos, nil
	}
	lat, errLat := strconv.ParseFloat(places[0].Lat, 64)
	lon, errLon := strconv.ParseFloat(places[0].Lon, 64)
	if errLat != nil || errLon != nil {
		return pos, fmt.Errorf("geocoder: bad coordinates %q, %q", places[0].Lat, places[0].Lon)
	}
	pos.Status, pos.Latitude, pos.Longitude = Found, lat, lon
	pos.SourceType, pos.Ambiguous = "Address", len(places) > 1
	return pos, nil
}
