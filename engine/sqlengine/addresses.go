package sqlengine

import (
	"context"
	"strconv"

	"fieldapi/engine"
)

// Address rules (spec 2.3, 4.6): an address belongs to one owner, a
// customer, a supplier or an object of one of the four levels. The catalog
// checks customers and suppliers exist and that one owner is given; the
// engine resolves the owner, whose kind and name the address shows
// (OwnerType, OwnerName).
func addressRules() *registerRules {
	return &registerRules{
		prepareCreate: func(ctx context.Context, w *writer, _ *table, values map[string]any) error {
			return w.resolveAddressOwner(ctx, values, values)
		},
		prepareUpdate: func(ctx context.Context, w *writer, _ *table, current engine.Record, values map[string]any) error {
			after := valuesAfter(current, values, addressOwnerFields)
			return w.resolveAddressOwner(ctx, after, values)
		},
	}
}

// addressOwnerFields name an address's owner.
var addressOwnerFields = []string{"CustomerNr", "SupplierNr", "ObjectNr", "Level"}

// resolveAddressOwner finds the owner an address names (from address, the
// values after the write) and sets OwnerType and OwnerName into out. One
// owner only: a customer, a supplier, or an object with its level 1-4.
func (w *writer) resolveAddressOwner(ctx context.Context, address, out map[string]any) error {
	var given []string
	for _, name := range addressOwnerFields[:3] {
		if !isEmpty(address[name]) {
			given = append(given, name)
		}
	}
	if len(given) != 1 {
		return engine.Refuse("an address belongs to exactly one owner: give one of CustomerNr, SupplierNr or ObjectNr (with Level)").
			WithValid(addressOwnerFields[:3]...)
	}
	var ownerType, register string
	switch given[0] {
	case "CustomerNr":
		ownerType, register = "customer", "customers"
	case "SupplierNr":
		ownerType, register = "supplier", "suppliers"
	default:
		level, _ := address["Level"].(float64)
		if level < 1 || level > 4 || level != float64(int(level)) {
			return engine.Refuse("an object's address needs its Level, 1 to 4").WithValid("1", "2", "3", "4")
		}
		ownerType, register = "object", "objects"+strconv.Itoa(int(level))
	}
	owner, err := w.referenced(ctx, w.e.tables[register], address[given[0]].(string))
	if err != nil {
		return err
	}
	out["OwnerType"], out["OwnerName"] = ownerType, owner["Name"]
	return nil
}
