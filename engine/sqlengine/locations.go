package sqlengine

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/geocode"
)

var _ engine.Locations = (*Engine)(nil)

// Positions of records (spec 2.5), kept in the locations table for the
// registers the catalog marks location: true.
//
// A record is located from its address: its own address fields, or else
// those of the first record it references that has one (such as an
// object's customer; a register's rules may say which references to try
// first: locateFrom). The engine's geocoder (Options.Geocoder, package
// geocode) places the address; it runs outside any transaction, as it may
// call out to a server. A pinned position is fixed and never recalculated.

// Location statuses.
const (
	locFound           = geocode.Found           // a position is known
	locPending         = geocode.Pending         // never located: ask with locate=true
	locNoAddress       = "NoAddress"             // the record has no address to locate
	locAddressNotFound = geocode.AddressNotFound // the geocoder does not know the address
	locError           = "Error"                 // the geocoder failed; nothing was stored
)

type locationRow struct {
	Latitude   sql.NullFloat64 `db:"latitude"`
	Longitude  sql.NullFloat64 `db:"longitude"`
	Address    string          `db:"address"`
	Status     string          `db:"status"`
	SourceType string          `db:"source_type"`
	Provider   string          `db:"provider"`
	Fixed      bool            `db:"fixed"`
	Ambiguous  bool            `db:"ambiguous"`
}

func (r locationRow) location() engine.Location {
	loc := engine.Location{Address: r.Address, Status: r.Status, SourceType: r.SourceType,
		Provider: r.Provider, Fixed: r.Fixed, Ambiguous: r.Ambiguous}
	if r.Latitude.Valid && r.Longitude.Valid {
		loc.Latitude, loc.Longitude = &r.Latitude.Float64, &r.Longitude.Float64
	}
	return loc
}

// locationRowOf is the row that stores a location.
func locationRowOf(loc engine.Location) locationRow {
	r := locationRow{Address: loc.Address, Status: loc.Status, SourceType: loc.SourceType,
		Provider: loc.Provider, Fixed: loc.Fixed, Ambiguous: loc.Ambiguous}
	if loc.Latitude != nil && loc.Longitude != nil {
		r.Latitude = sql.NullFloat64{Float64: *loc.Latitude, Valid: true}
		r.Longitude = sql.NullFloat64{Float64: *loc.Longitude, Valid: true}
	}
	return r
}

// record is the location as a record, for a receipt to render.
func (r locationRow) record() engine.Record {
	loc := r.location()
	rec := engine.Record{"Latitude": nil, "Longitude": nil, "Address": loc.Address, "Status": loc.Status,
		"SourceType": loc.SourceType, "Provider": loc.Provider, "Fixed": loc.Fixed, "Ambiguous": loc.Ambiguous}
	if loc.Latitude != nil {
		rec["Latitude"], rec["Longitude"] = *loc.Latitude, *loc.Longitude
	}
	return rec
}

// Location reads a record's position; with opt.Locate it is recalculated
// first when the record has none (or always, with opt.Force), unless it
// is pinned. A geocoder that fails answers Status Error and leaves the
// stored position as it was.
func (e *Engine) Location(ctx context.Context, s engine.Session, register, key string, opt engine.Locate) (engine.Location, error) {
	t, err := e.locatable(register)
	if err != nil {
		return engine.Location{}, err
	}
	stored, err := call(e, ctx, func(ctx context.Context) (storedLocation, error) {
		if err := e.authorize(ctx, e.db, s, register, readAccess); err != nil {
			return storedLocation{}, err
		}
		return e.readLocation(ctx, e.db, t, s.Company, key)
	})
	row := stored.row
	if err != nil || !opt.Locate || (stored.saved && (row.Fixed || (row.Latitude.Valid && !opt.Force))) {
		return row.location(), err
	}
	address, err := call(e, ctx, func(ctx context.Context) (postalAddress, error) {
		return e.addressOf(ctx, e.db, t, s.Company, stored.record, 2)
	})
	if err != nil {
		return engine.Location{}, err
	}
	row, err = e.geocode(ctx, address)
	if err != nil || row.Status == locPending {
		return row.location(), nil // not stored: a later call tries again
	}
	row, err = call(e, ctx, func(ctx context.Context) (locationRow, error) {
		saved := row
		err := e.inTx(ctx, func(tx *txn) error {
			again, err := e.readLocation(ctx, tx, t, s.Company, key)
			if err != nil {
				return err
			}
			if again.saved && again.row.Fixed {
				saved = again.row // pinned meanwhile
				return nil
			}
			if err := e.saveLocation(ctx, tx, t, s.Company, again.seq, saved); err != nil {
				return err
			}
			w := e.apiWriter(tx, s)
			w.emit(t, catalog.EventLocationChanged, key, locationFields)
			return w.recordEvents(ctx, saved.record())
		})
		return saved, err
	})
	return row.location(), err
}

// geocode places an address with the engine's geocoder. A provider error
// is returned with a row of Status Error to show.
func (e *Engine) geocode(ctx context.Context, a postalAddress) (locationRow, error) {
	if a.text == "" {
		return locationRow{Status: locNoAddress}, nil
	}
	pos, err := e.opt.Geocoder.Geocode(ctx, geocode.Address{Text: a.text, City: a.city})
	row := locationRow{Address: a.text, Status: pos.Status, SourceType: pos.SourceType, Provider: pos.Provider, Ambiguous: pos.Ambiguous}
	if err != nil {
		return locationRow{Address: a.text, Status: locError, Provider: pos.Provider}, err
	}
	if pos.Status == locFound {
		row.Latitude = sql.NullFloat64{Float64: pos.Latitude, Valid: true}
		row.Longitude = sql.NullFloat64{Float64: pos.Longitude, Valid: true}
	}
	return row, nil
}

// locationFields are the changed fields of a location_changed event.
var locationFields = []string{"Latitude", "Longitude", "Address", "Status", "Fixed"}

// PinLocation fixes a record's position. The engine's geocoding never
// overwrites it; the change is logged on the record.
func (e *Engine) PinLocation(ctx context.Context, s engine.Session, register, key string, pin engine.Pin, r engine.Receipt) (engine.Response, error) {
	return call(e, ctx, func(ctx context.Context) (engine.Response, error) {
		t, err := e.locatable(register)
		if err != nil {
			return engine.Response{}, err
		}
		if err := e.authorizeWrite(ctx, s, register); err != nil {
			return engine.Response{}, err
		}
		var resp engine.Response
		err = e.inTx(ctx, func(tx *txn) error {
			stored, err := e.readLocation(ctx, tx, t, s.Company, key)
			if err != nil {
				return err
			}
			row := locationRow{
				Latitude:  sql.NullFloat64{Float64: pin.Latitude, Valid: true},
				Longitude: sql.NullFloat64{Float64: pin.Longitude, Valid: true},
				Address:   pin.Address, Status: locFound, SourceType: "Manual", Fixed: true,
			}
			if row.Address == "" {
				row.Address = stored.row.Address
			}
			if err := e.saveLocation(ctx, tx, t, s.Company, stored.seq, row); err != nil {
				return err
			}
			w := e.apiWriter(tx, s)
			detail := fmt.Sprintf("Latitude %.6f, Longitude %.6f", pin.Latitude, pin.Longitude)
			if err := w.log(ctx, t, key, "pin location", detail, stored.record); err != nil {
				return err
			}
			if resp, err = storeReceipt(ctx, tx, r, row.record()); err != nil {
				return err
			}
			w.emit(t, catalog.EventLocationChanged, key, locationFields)
			return w.recordEvents(ctx, row.record())
		})
		return resp, err
	})
}

// locatable returns the table of a register that keeps positions.
func (e *Engine) locatable(register string) (*table, error) {
	t, err := e.table(register)
	if err != nil {
		return nil, err
	}
	if !t.reg.Location {
		return nil, engine.ErrNotFound
	}
	return t, nil
}

// storedLocation is a record with its stored position, if any.
type storedLocation struct {
	record engine.Record
	seq    int64
	row    locationRow
	saved  bool // row was read from the table; otherwise it is Pending
}

// readLocation reads a record and its stored position. A record never
// located is Pending, with the address it would be located from.
func (e *Engine) readLocation(ctx context.Context, q db, t *table, company, key string) (storedLocation, error) {
	cond, arg, ok := t.keyMatch(key)
	if !ok {
		return storedLocation{}, engine.ErrNotFound
	}
	recs, seqs, err := e.fetch(ctx, q, t, company, " AND "+cond, arg)
	if err != nil {
		return storedLocation{}, err
	}
	if len(recs) == 0 {
		return storedLocation{}, engine.ErrNotFound
	}
	stored := storedLocation{record: recs[0], seq: seqs[0]}
	err = get(ctx, q, &stored.row, `SELECT "latitude", "longitude", "address", "status", "source_type", "provider", "fixed", "ambiguous"
		FROM "locations" WHERE "company" = ? AND "register" = ? AND "record_seq" = ?`, company, t.reg.Name, stored.seq)
	switch {
	case err == nil:
		stored.saved = true
	case errors.Is(err, sql.ErrNoRows):
		address, err := e.addressOf(ctx, q, t, company, stored.record, 2)
		if err != nil {
			return storedLocation{}, err
		}
		stored.row = locationRow{Address: address.text, Status: locPending}
	default:
		return storedLocation{}, err
	}
	return stored, nil
}

func (e *Engine) saveLocation(ctx context.Context, tx *txn, t *table, company string, seq int64, row locationRow) error {
	_, err := exec(ctx, tx, `INSERT INTO "locations"
		("company", "register", "record_seq", "latitude", "longitude", "address", "status", "source_type", "provider", "fixed", "ambiguous", "modified")
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT ("company", "register", "record_seq") DO UPDATE SET
			"latitude" = excluded."latitude", "longitude" = excluded."longitude", "address" = excluded."address",
			"status" = excluded."status", "source_type" = excluded."source_type", "provider" = excluded."provider",
			"fixed" = excluded."fixed", "ambiguous" = excluded."ambiguous", "modified" = excluded."modified"`,
		company, t.reg.Name, seq, row.Latitude, row.Longitude, row.Address, row.Status, row.SourceType, row.Provider,
		row.Fixed, row.Ambiguous, e.now())
	return err
}

// postalAddress is the address a record is located from.
type postalAddress struct {
	text string // one line, as shown in the location
	city string
}

// addressOf is a record's own address (AddressLine1, PostalCode, City and
// so on, where the register has them), or else that of the first record it
// references that has one, following at most depth references.
func (e *Engine) addressOf(ctx context.Context, q db, t *table, company string, rec engine.Record, depth int) (postalAddress, error) {
	text := func(name string) string {
		if t.reg.Field(name) == nil {
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
	for _, f := range e.locateFrom(t) {
		key, _ := rec[f.Name].(string)
		if f.References == "" || key == "" {
			continue
		}
		rt := e.tables[f.References]
		cond, arg, ok := rt.keyMatch(key)
		if !ok {
			continue
		}
		refs, _, err := e.fetch(ctx, q, rt, company, " AND "+cond, arg)
		if err != nil || len(refs) == 0 {
			if err != nil {
				return postalAddress{}, err
			}
			continue
		}
		address, err := e.addressOf(ctx, q, rt, company, refs[0], depth-1)
		if err != nil || address.text != "" {
			return address, err
		}
	}
	return postalAddress{}, nil
}

// locateFrom are the fields a record without an address of its own is
// located from, in the order the catalog's locateFrom gives, or else every
// field in catalog order.
func (e *Engine) locateFrom(t *table) []*catalog.Field {
	names := t.reg.LocateFrom
	if names == nil {
		return t.reg.Fields
	}
	fields := make([]*catalog.Field, 0, len(names))
	for _, name := range names {
		if f := t.reg.Field(name); f != nil {
			fields = append(fields, f)
		}
	}
	return fields
}
