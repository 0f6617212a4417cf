package model

import "testing"

func TestPluralName(t *testing.T) {
	cases := []struct{ name, record, want string }{
		{"customers", "Customer", "Customers"},
		{"suppliercontacts", "SupplierContact", "SupplierContacts"},
		{"timetypes", "TimeType", "TimeTypes"},
		{"pricelists", "PriceList", "PriceLists"},
		{"addresses", "Address", "Addresses"},
		{"objects1", "Object1", "Objects1"},
		{"people", "Person", "People"},
	}
	for _, tc := range cases {
		if got := pluralName(tc.name, tc.record); got != tc.want {
			t.Errorf("pluralName(%q, %q) = %q, want %q", tc.name, tc.record, got, tc.want)
		}
	}
}
