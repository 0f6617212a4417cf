package rules

import (
	"context"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/names"
)

// addressOwner: an address belongs to one owner (spec 2.3, 4.6), a
// customer, a supplier or an object of one of the four levels. The catalog
// checks customers and suppliers exist and that one owner is given; the
// rule resolves the owner, whose kind and name the address shows
// (OwnerType, OwnerName).
type addressOwner struct{}

// addressOwnerFields name an address's owner; Level says which object register.
var addressOwnerFields = []string{names.AddressCustomerNr, names.AddressSupplierNr, names.AddressObjectNr, names.AddressLevel}

// objectRegisters are the object registers by level - 1, and the field
// holding their names.
var objectRegisters = [4]struct{ register, name string }{
	{names.Objects1, names.Object1Name},
	{names.Objects2, names.Object2Name},
	{names.Objects3, names.Object3Name},
	{names.Objects4, names.Object4Name},
}

func (addressOwner) Name() string     { return "the address owner rules" }
func (addressOwner) Register() string { return names.Addresses }
func (addressOwner) Needs() []Need {
	needs := []Need{
		Field(names.Addresses, names.AddressCustomerNr, catalog.Text),
		Field(names.Addresses, names.AddressSupplierNr, catalog.Text),
		Field(names.Addresses, names.AddressObjectNr, catalog.Text),
		Field(names.Addresses, names.AddressLevel, catalog.Number),
		Field(names.Addresses, names.AddressOwnerType, catalog.Text),
		Field(names.Addresses, names.AddressOwnerName, catalog.Text),
		Field(names.Customers, names.CustomerName, catalog.Text),
		Field(names.Suppliers, names.SupplierName, catalog.Text),
	}
	for _, o := range objectRegisters {
		needs = append(needs, Field(o.register, o.name, catalog.Text))
	}
	return needs
}

func (addressOwner) PrepareCreate(ctx context.Context, tx Tx, values Values) error {
	return resolveAddressOwner(ctx, tx, values, values)
}

func (addressOwner) PrepareUpdate(ctx context.Context, tx Tx, current engine.Record, values Values) error {
	return resolveAddressOwner(ctx, tx, valuesAfter(current, values, addressOwnerFields), values)
}

// resolveAddressOwner finds the owner an address names (from address, the
// values after the write) and sets OwnerType and OwnerName into out. One
// owner only: a customer, a supplier, or an object with its level 1-4.
func resolveAddressOwner(ctx context.Context, tx Tx, address, out Values) error {
	owners := addressOwnerFields[:3]
	var given []string
	for _, name := range owners {
		if !engine.Empty(address[name]) {
			given = append(given, name)
		}
	}
	if len(given) != 1 {
		return engine.Refuse("an address belongs to exactly one owner: give one of %s, %s or %s (with %s)",
			names.AddressCustomerNr, names.AddressSupplierNr, names.AddressObjectNr, names.AddressLevel).WithValid(owners...)
	}
	var ownerType, register, nameField string
	switch given[0] {
	case names.AddressCustomerNr:
		ownerType, register, nameField = "customer", names.Customers, names.CustomerName
	case names.AddressSupplierNr:
		ownerType, register, nameField = "supplier", names.Suppliers, names.SupplierName
	default:
		level := number(address, names.AddressLevel)
		if level < 1 || level > 4 || level != float64(int(level)) {
			return engine.Refuse("an object's address needs its %s, 1 to 4", names.AddressLevel).WithValid("1", "2", "3", "4")
		}
		o := objectRegisters[int(level)-1]
		ownerType, register, nameField = "object", o.register, o.name
	}
	owner, err := tx.Referenced(ctx, register, text(address, given[0]))
	if err != nil {
		return err
	}
	out[names.AddressOwnerType], out[names.AddressOwnerName] = ownerType, owner[nameField]
	return nil
}
