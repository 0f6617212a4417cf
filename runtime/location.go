package runtime

import (
	"encoding/json"
	"net/http"
	"strconv"

	"fieldapi/engine"
	"fieldapi/runtime/decode"
	"fieldapi/runtime/problem"
)

// GetLocation serves GET /v1/<register>/{key}/location?locate=&force=.
func GetLocation(c *Call, register string) error {
	locs, key, err := recordCapability[engine.Locations](c, "positions of records")
	if err != nil {
		return err
	}
	query, err := c.Query()
	if err != nil {
		return err
	}
	var opt engine.Locate
	for name, vs := range query {
		b, err := strconv.ParseBool(vs[0])
		switch {
		case name != "locate" && name != "force":
			return problem.InvalidParameter(name, "not a parameter here; use locate and force")
		case err != nil || len(vs) > 1:
			return problem.InvalidParameter(name, "expected true or false, once")
		case name == "locate":
			opt.Locate = b
		default:
			opt.Force = b
		}
	}
	loc, err := locs.Location(c.Context(), c.Session, register, key, opt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, loc)
}

// pinBody is the body of PUT …/location.
type pinBody struct {
	Latitude  decode.Optional[float64]
	Longitude decode.Optional[float64]
	Address   decode.Optional[string]
}

var pinShape = decode.Shape{Writable: []string{"latitude", "longitude", "address"}, Required: []string{"latitude", "longitude"}}

func (b *pinBody) DecodeField(name string, raw json.RawMessage) error {
	switch name {
	case "latitude":
		return b.Latitude.Decode(raw)
	case "longitude":
		return b.Longitude.Decode(raw)
	case "address":
		return b.Address.Decode(raw)
	}
	return problem.UnknownField(name, pinShape.Writable)
}

func (b *pinBody) Input() engine.Input { return engine.NewInput() } // pins are not record inputs

// PinLocation serves PUT /v1/<register>/{key}/location: the position is
// fixed, and the engine's geocoding never overwrites it.
func PinLocation(c *Call, register string) error {
	if c.planning() {
		return nil
	}
	locs, key, err := recordCapability[engine.Locations](c, "positions of records")
	if err != nil {
		return err
	}
	var b pinBody
	if err := decode.Object(c.Body, pinShape, &b); err != nil {
		return err
	}
	switch {
	case b.Latitude.Presence != decode.Set || b.Latitude.Value < -90 || b.Latitude.Value > 90:
		return problem.InvalidField("latitude", "expected a number from -90 to 90")
	case b.Longitude.Presence != decode.Set || b.Longitude.Value < -180 || b.Longitude.Value > 180:
		return problem.InvalidField("longitude", "expected a number from -180 to 180")
	}
	pin := engine.Pin{Latitude: b.Latitude.Value, Longitude: b.Longitude.Value, Address: b.Address.Value}
	resp, err := locs.PinLocation(c.Context(), c.Session, register, key, pin, c.Receipt(http.StatusOK, locationView))
	if err != nil {
		return err
	}
	return c.Send(resp)
}

// locationView renders a location the engine returns as a record.
func locationView(rec engine.Record) any {
	return engine.Location{
		Latitude:   rec.Number("Latitude"),
		Longitude:  rec.Number("Longitude"),
		Address:    deref(rec.Text("Address")),
		Status:     deref(rec.Text("Status")),
		SourceType: deref(rec.Text("SourceType")),
		Provider:   deref(rec.Text("Provider")),
		Fixed:      rec.Bool("Fixed") != nil && *rec.Bool("Fixed"),
		Ambiguous:  rec.Bool("Ambiguous") != nil && *rec.Bool("Ambiguous"),
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
