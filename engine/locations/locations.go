// Package locations keeps the positions of records (spec 2.5) for the
// registers the catalog marks location: true: engine.Locations, beside the
// pipeline, over the same store.
//
// A record is located from its own address fields, or else those of the
// first record it references that has some (the catalog's locateFrom says
// which references to try first). The geocoder (package geocode) runs
// outside any transaction, as it may call a server. A pinned position is
// never recalculated.
package locations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/geocode"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/pipeline/write"
	"fieldapi/engine/store"
)

// Location statuses.
const (
	found     = geocode.Found   // a position is known (geocode.AddressNotFound: the geocoder does not know the address)
	pending   = geocode.Pending // never located: ask with locate=true
	noAddress = "NoAddress"     // the record has no address to locate
	failed    = "Error"         // the geocoder failed; nothing was stored
)

// table keeps one position per record: company, register and the record's Seq.
const table = "locations"

// Tables is what the module keeps in the store: add it to the schema.
func Tables() []*store.Table {
	text := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Text, NotNull: true}
	}
	flag := func(field string) store.Column {
		return store.Column{Field: field, Name: field, Type: store.Bool, NotNull: true}
	}
	return []*store.Table{{
		Name: table, Company: true, Key: []string{"register", "record_seq"},
		Columns: []store.Column{
			text("register"), {Field: "record_seq", Name: "record_seq", Type: store.Int, NotNull: true},
			{Field: "latitude", Name: "latitude", Type: store.Number}, {Field: "longitude", Name: "longitude", Type: store.Number},
			text("address"), text("status"), text("source_type"), text("provider"), flag("fixed"), flag("ambiguous"), text("modified"),
		},
	}}
}

// Module is engine.Locations over the pipeline's engine.
type Module struct {
	e        *pipeline.Engine
	geocoder geocode.Geocoder
}

var _ engine.Locations = (*Module)(nil)

// New serves positions for e's registers, placed by g (nil: the offline
// gazetteer), and adds the positions of imported records to e's import path.
func New(e *pipeline.Engine, g geocode.Geocoder) *Module {
	if g == nil {
		g = geocode.Gazetteer{}
	}
	m := &Module{e: e, geocoder: g}
	e.ImportsWith(m.importLocation)
	return m
}

// changedFields are the changed fields of a location_changed event.
var changedFields = []string{"Latitude", "Longitude", "Address", "Status", "Fixed"}

// Location reads a record's position; with opt.Locate it is recalculated
// first when the record has none (or always, with opt.Force), unless it is
// pinned. A geocoder that fails answers Status Error and leaves the stored
// position as it was.
func (m *Module) Location(ctx context.Context, s engine.Session, register, key string, opt engine.Locate) (engine.Location, error) {
	if err := m.locatable(register); err != nil {
		return engine.Location{}, err
	}
	if err := m.e.Authorize(ctx, s, register, false); err != nil {
		return engine.Location{}, err
	}
	st, err := m.read(ctx, m.e.Store(), s.Company, register, key)
	if err != nil || !opt.Locate || (st.saved && (st.loc.Fixed || (st.loc.Latitude != nil && !opt.Force))) {
		return st.loc, err
	}
	address, err := m.addressOf(ctx, m.e.Store(), s.Company, register, st.record, 2)
	if err != nil {
		return engine.Location{}, err
	}
	loc, err := m.geocode(ctx, address)
	if err != nil || loc.Status == pending {
		return loc, nil // not stored: a later call tries again
	}
	err = m.e.Transact(ctx, s, func(ctx context.Context, w *write.Writer) (engine.Record, error) {
		again, err := m.read(ctx, w.Tx(), s.Company, register, key)
		if err != nil {
			return nil, err
		}
		if again.saved && again.loc.Fixed {
			loc = again.loc // pinned meanwhile
			return nil, nil
		}
		if err := save(ctx, w.Tx(), s.Company, register, again.seq, loc, w.Now()); err != nil {
			return nil, err
		}
		w.Emit(register, catalog.EventLocationChanged, key, changedFields)
		return asRecord(loc), nil
	})
	return loc, err
}

// PinLocation fixes a record's position. The engine's geocoding never
// overwrites it; the change is logged on the record.
func (m *Module) PinLocation(ctx context.Context, s engine.Session, register, key string, pin engine.Pin, rc engine.Receipt) (engine.Response, error) {
	if err := m.locatable(register); err != nil {
		return engine.Response{}, err
	}
	return m.e.Write(ctx, s, register, rc, func(ctx context.Context, w *write.Writer) (engine.Record, error) {
		st, err := m.read(ctx, w.Tx(), s.Company, register, key)
		if err != nil {
			return nil, err
		}
		lat, lon := pin.Latitude, pin.Longitude
		loc := engine.Location{Latitude: &lat, Longitude: &lon, Address: pin.Address, Status: found, SourceType: "Manual", Fixed: true}
		if loc.Address == "" {
			loc.Address = st.loc.Address
		}
		if err := save(ctx, w.Tx(), s.Company, register, st.seq, loc, w.Now()); err != nil {
			return nil, err
		}
		detail := fmt.Sprintf("Latitude %.6f, Longitude %.6f", pin.Latitude, pin.Longitude)
		if err := w.Log(register, key, "pin location", detail, st.record); err != nil {
			return nil, err
		}
		w.Emit(register, catalog.EventLocationChanged, key, changedFields)
		return asRecord(loc), nil
	})
}

// locatable refuses a register that keeps no positions (404).
func (m *Module) locatable(register string) error {
	r := m.e.Catalog().Register(register)
	if r == nil || !r.Location {
		return engine.ErrNotFound
	}
	return nil
}

// stored is a record with its stored position, if any.
type stored struct {
	record engine.Record
	seq    int64
	loc    engine.Location
	saved  bool // loc was read from the table; otherwise it is Pending
}

// read reads a record and its stored position. A record never located is
// Pending, with the address it would be located from.
func (m *Module) read(ctx context.Context, q store.Reader, company, register, key string) (stored, error) {
	rec, seq, err := m.e.Row(ctx, q, company, register, key)
	if err != nil {
		return stored{}, err
	}
	st := stored{record: rec, seq: seq}
	rows, err := q.Select(ctx, store.Select{Table: table, Company: company,
		Where: []store.Cond{store.Equal("register", register), store.Equal("record_seq", seq)}})
	if err != nil {
		return stored{}, err
	}
	if len(rows) == 1 {
		st.loc, st.saved = fromRow(rows[0].Values), true
		return st, nil
	}
	address, err := m.addressOf(ctx, q, company, register, rec, 2)
	if err != nil {
		return stored{}, err
	}
	st.loc = engine.Location{Address: address.text, Status: pending}
	return st, nil
}

// save stores a record's position, replacing the one it had.
func save(ctx context.Context, tx store.Tx, company, register string, seq int64, loc engine.Location, modified string) error {
	row := store.Values{"register": register, "record_seq": seq, "latitude": nil, "longitude": nil,
		"address": loc.Address, "status": loc.Status, "source_type": loc.SourceType, "provider": loc.Provider,
		"fixed": loc.Fixed, "ambiguous": loc.Ambiguous, "modified": modified}
	if loc.Latitude != nil && loc.Longitude != nil {
		row["latitude"], row["longitude"] = *loc.Latitude, *loc.Longitude
	}
	return tx.Upsert(ctx, table, company, row, []string{"register", "record_seq"},
		[]string{"latitude", "longitude", "address", "status", "source_type", "provider", "fixed", "ambiguous", "modified"})
}

// fromRow is a stored position.
func fromRow(v store.Values) engine.Location {
	text := func(name string) string { s, _ := v[name].(string); return s }
	flag := func(name string) bool { b, _ := v[name].(bool); return b }
	loc := engine.Location{Address: text("address"), Status: text("status"), SourceType: text("source_type"),
		Provider: text("provider"), Fixed: flag("fixed"), Ambiguous: flag("ambiguous")}
	lat, latOK := v["latitude"].(float64)
	lon, lonOK := v["longitude"].(float64)
	if latOK && lonOK {
		loc.Latitude, loc.Longitude = &lat, &lon
	}
	return loc
}

// asRecord is the location as a record, for a receipt and an event.
func asRecord(loc engine.Location) engine.Record {
	rec := engine.Record{"Latitude": nil, "Longitude": nil, "Address": loc.Address, "Status": loc.Status,
		"SourceType": loc.SourceType, "Provider": loc.Provider, "Fixed": loc.Fixed, "Ambiguous": loc.Ambiguous}
	if loc.Latitude != nil && loc.Longitude != nil {
		rec["Latitude"], rec["Longitude"] = *loc.Latitude, *loc.Longitude
	}
	return rec
}

// geocode places an address. A provider error is returned with a
// location of Status Error to show.
func (m *Module) geocode(ctx context.Context, a postalAddress) (engine.Location, error) {
	if a.text == "" {
		return engine.Location{Status: noAddress}, nil
	}
	pos, err := m.geocoder.Geocode(ctx, geocode.Address{Text: a.text, City: a.city})
	if err != nil {
		return engine.Location{Address: a.text, Status: failed, Provider: pos.Provider}, err
	}
	loc := engine.Location{Address: a.text, Status: pos.Status, SourceType: pos.SourceType, Provider: pos.Provider, Ambiguous: pos.Ambiguous}
	if pos.Status == found {
		lat, lon := pos.Latitude, pos.Longitude
		loc.Latitude, loc.Longitude = &lat, &lon
	}
	return loc, nil
}

// postalAddress is the address a record is located from.
type postalAddress struct {
	text string // one line, as shown in the location
	city string
}

// addressOf is a record's own address (AddressLine1, PostalCode, City and
// so on, where the register has them), or else that of the first record it
// references that has one, following at most depth references.
func (m *Module) addressOf(ctx context.Context, q store.Reader, company, register string, rec engine.Record, depth int) (postalAddress, error) {
	reg := m.e.Catalog().Register(register)
	text := func(name string) string {
		if reg.Field(name) == nil {
			return ""
		}
		s, _ := rec[name].(string)
		return strings.TrimSpace(s)
	}
	parts := slices.DeleteFunc([]string{
		text("AddressLine1"), text("AddressLine2"),
		strings.TrimSpace(text("PostalCode") + " " + text("City")),
		text("State"), text("Country"),
	}, func(s string) bool { return s == "" })
	if len(parts) > 0 {
		return postalAddress{text: strings.Join(parts, ", "), city: text("City")}, nil
	}
	if depth == 0 {
		return postalAddress{}, nil
	}
	for _, f := range locateFrom(reg) {
		key, _ := rec[f.Name].(string)
		if f.References == "" || f.ReferencesBy != "" || key == "" {
			continue
		}
		referenced, _, err := m.e.Row(ctx, q, company, f.References, key)
		if errors.Is(err, engine.ErrNotFound) {
			continue
		}
		if err != nil {
			return postalAddress{}, err
		}
		address, err := m.addressOf(ctx, q, company, f.References, referenced, depth-1)
		if err != nil || address.text != "" {
			return address, err
		}
	}
	return postalAddress{}, nil
}

// locateFrom are the fields a record without an address of its own is
// located from, in the order the catalog's locateFrom gives, or else every
// field in catalog order.
func locateFrom(r *catalog.Register) []*catalog.Field {
	if r.LocateFrom == nil {
		return r.Fields
	}
	fields := make([]*catalog.Field, 0, len(r.LocateFrom))
	for _, name := range r.LocateFrom {
		if f := r.Field(name); f != nil {
			fields = append(fields, f)
		}
	}
	return fields
}

// importLocation stores the position an imported record carries as it is.
func (m *Module) importLocation(ctx context.Context, tx store.Tx, company, register string, seq int64, rec dataset.Record) error {
	if rec.Location == nil {
		return nil
	}
	return save(ctx, tx, company, register, seq, *rec.Location, m.e.Now())
}
