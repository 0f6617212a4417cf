package generated

import (
	"encoding/json"
	"fmt"
	"testing"

	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/runtime"
)

// views pairs each register's read shape as written straight from the
// record with its view.
var views = map[string]struct {
	json *runtime.RecordJSON
	view func(engine.Record) any
}{
	"addresses":        {addressJSON, func(r engine.Record) any { return viewAddress(r) }},
	"contacts":         {contactJSON, func(r engine.Record) any { return viewContact(r) }},
	"contracts":        {contractJSON, func(r engine.Record) any { return viewContract(r) }},
	"customers":        {customerJSON, func(r engine.Record) any { return viewCustomer(r) }},
	"materials":        {materialJSON, func(r engine.Record) any { return viewMaterial(r) }},
	"objects1":         {object1JSON, func(r engine.Record) any { return viewObject1(r) }},
	"objects2":         {object2JSON, func(r engine.Record) any { return viewObject2(r) }},
	"objects3":         {object3JSON, func(r engine.Record) any { return viewObject3(r) }},
	"objects4":         {object4JSON, func(r engine.Record) any { return viewObject4(r) }},
	"orderlines":       {orderLineJSON, func(r engine.Record) any { return viewOrderLine(r) }},
	"orders":           {orderJSON, func(r engine.Record) any { return viewOrder(r) }},
	"pricelists":       {priceListJSON, func(r engine.Record) any { return viewPriceList(r) }},
	"products":         {productJSON, func(r engine.Record) any { return viewProduct(r) }},
	"projects":         {projectJSON, func(r engine.Record) any { return viewProject(r) }},
	"quotes":           {quoteJSON, func(r engine.Record) any { return viewQuote(r) }},
	"resources":        {resourceJSON, func(r engine.Record) any { return viewResource(r) }},
	"suppliercontacts": {supplierContactJSON, func(r engine.Record) any { return viewSupplierContact(r) }},
	"suppliers":        {supplierJSON, func(r engine.Record) any { return viewSupplier(r) }},
	"tasks":            {taskJSON, func(r engine.Record) any { return viewTask(r) }},
	"times":            {timeJSON, func(r engine.Record) any { return viewTime(r) }},
	"timetypes":        {timeTypeJSON, func(r engine.Record) any { return viewTimeType(r) }},
	"users":            {userJSON, func(r engine.Record) any { return viewUser(r) }},
}

// TestRecordJSONIsTheView: every register's records written straight from
// the record read as json.Marshal of the view: with every member set,
// with none, and with values of another type than the field's.
func TestRecordJSONIsTheView(t *testing.T) {
	cat, err := catalog.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cat.Registers {
		if _, ok := views[r.Name]; !ok {
			t.Errorf("register %s is not in views", r.Name)
		}
	}
	for name, v := range views {
		for i, rec := range []engine.Record{filled(v.json, 0), filled(v.json, 1), {}, mistyped(v.json)} {
			want, err := json.Marshal(v.view(rec))
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.json.Append(nil, rec)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s, record %d: %s (%v)\nwant %s", name, i, got, err, want)
			}
		}
	}
}

// filled is a record with every member of its read shape set, varied by n.
func filled(shape *runtime.RecordJSON, n int) engine.Record {
	rec := engine.Record{}
	for i, m := range shape.Members {
		text := fmt.Sprintf("%s <%d> & \"é\" \u2028 %d", m.Name, i, n)
		switch m.Kind {
		case runtime.JSONText:
			rec[m.Name] = text
		case runtime.JSONNumber:
			rec[m.Name] = float64(i*n) / 7
		case runtime.JSONBool:
			rec[m.Name] = (i+n)%2 == 0
		case runtime.JSONList:
			rec[m.Name] = []string{text, ""}
		case runtime.JSONObject:
			rec[m.Name] = map[string]string{"b": text, "a": "", text: "x"}
		case runtime.JSONLines:
			rec[m.Name] = []engine.Record{filled(m.Lines, n), filled(m.Lines, n+1)}
		}
	}
	return rec
}

// mistyped is a record whose every member holds a value of another type.
func mistyped(shape *runtime.RecordJSON) engine.Record {
	rec := engine.Record{}
	for _, m := range shape.Members {
		if m.Kind == runtime.JSONText {
			rec[m.Name] = 1.5
		} else {
			rec[m.Name] = "text"
		}
	}
	return rec
}
