package sqlengine

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"fieldapi/engine"
)

// The demo content: a Swedish service company ("demo") and a Norwegian one
// ("demo2"). Everything is generated deterministically from the lists
// below. Every register has keys only one of the companies has, and a few
// keys both have with different content (customer 1001, price list 1, time
// type Normaltid), so that tests can tell the companies apart.

func demoCompanies() []demoCompany {
	return []demoCompany{swedishDemo().company(), norwegianDemo().company()}
}

// demoLocale is the content of one demo company.
type demoLocale struct {
	id, name                      string
	timeZone                      string // the company's time zone setting (calendar.go)
	country, phoneArea, mailHost  string
	lang                          int // index into the bilingual lists: 0 Swedish, 1 Norwegian
	users                         []demoUser
	timeTypes                     []map[string]any
	priceLists                    []map[string]any
	productStart                  int
	resources                     []map[string]any
	places                        []demoPlace
	stems                         []string
	kinds                         []demoKind
	customerStart, customerCount  int
	extraCustomers                []engine.Input
	firstNames, lastNames, titles []string
	streets                       []string
	addressKinds                  []string
	suppliers                     []demoSupplier
	objectNames                   [4]string // level names, used to name objects
	objectOffset                  int       // object numbers are level*100 + offset + 1..8
	objectKinds                   [4][]string
	projects, contracts           []map[string]any
	extraDefs                     []demoExtraDef
	fieldNames                    []engine.FieldName
}

type demoPlace struct{ city, postalCode string }

// demoKind makes a customer name from a stem, e.g. "Brf %s".
type demoKind struct{ format, category string }

type demoSupplier struct {
	nr, name, category, city string
	contacts                 []string // "Name|Position"
}

// company turns the content into load steps.
func (l demoLocale) company() demoCompany {
	return demoCompany{id: l.id, name: l.name, steps: []demoStep{
		{"settings", nil, l.insertSettings},
		{"users", []string{"users"}, insertUsers(l.users)},
		{"timetypes", []string{"timetypes"}, l.createEach("timetypes", l.timeTypes)},
		{"pricelists", []string{"pricelists"}, l.createEach("pricelists", l.priceLists)},
		{"products", []string{"products"}, l.createProducts},
		{"resources", []string{"resources", "products"}, l.createEach("resources", l.resources)},
		{"customers", []string{"customers", "contacts", "addresses"}, l.createCustomers},
		{"suppliers", []string{"suppliers", "suppliercontacts"}, l.createSuppliers},
		{"objects", []string{"objects1", "objects2", "objects3", "objects4", "customers"}, l.createObjects},
		{"projects", []string{"projects", "customers", "users"}, l.createEach("projects", l.projects)},
		{"contracts", []string{"contracts", "customers", "objects1"}, l.createEach("contracts", l.contracts)},
		{"extrafields", nil, insertExtraDefs(l.extraDefs)},
		{"tasks", []string{"tasks", "materials", "times"}, l.createTasks},
		{"orders", []string{"orders", "orderlines"}, l.createOrders},
		{"quotes", []string{"quotes", "materials", "times"}, l.createQuotes},
		{"contractlines", []string{"contracts", "materials", "times"}, l.createContractLines},
		{"bookings", []string{"times"}, l.createBookings},
		{"fieldnames", nil, insertFieldNames(l.fieldNames)},
	}}
}

func (l demoLocale) createEach(register string, values []map[string]any) func(context.Context, *writer) error {
	return func(ctx context.Context, w *writer) error {
		for _, v := range values {
			if err := w.createAll(ctx, register, record(v)); err != nil {
				return err
			}
		}
		return nil
	}
}

// demoProduct names are given in Swedish and Norwegian.
type demoProduct struct {
	names           [2]string
	category        string
	unit            [2]string
	price, purchase float64
}

var demoProducts = []demoProduct{
	{[2]string{"Värmepump luft/vatten 12 kW", "Varmepumpe luft/vann 12 kW"}, "Heat pumps", [2]string{"st", "stk"}, 98500, 71000},
	{[2]string{"Luft/luft-värmepump 5 kW", "Luft/luft-varmepumpe 5 kW"}, "Heat pumps", [2]string{"st", "stk"}, 24900, 16500},
	{[2]string{"Bergvärmepump 8 kW", "Bergvarmepumpe 8 kW"}, "Heat pumps", [2]string{"st", "stk"}, 89900, 64000},
	{[2]string{"Köldmedium R32", "Kuldemedium R32"}, "Heat pumps", [2]string{"kg", "kg"}, 890, 520},
	{[2]string{"Filter F7 592x592", "Filter F7 592x592"}, "Ventilation", [2]string{"st", "stk"}, 420, 180},
	{[2]string{"Filter G4 för FTX-aggregat", "Filter G4 for ventilasjonsaggregat"}, "Ventilation", [2]string{"st", "stk"}, 260, 95},
	{[2]string{"FTX-aggregat 250 m³/h", "Ventilasjonsaggregat 250 m³/t"}, "Ventilation", [2]string{"st", "stk"}, 38500, 26000},
	{[2]string{"Kanalfläkt 160 mm", "Kanalvifte 160 mm"}, "Ventilation", [2]string{"st", "stk"}, 3450, 1900},
	{[2]string{"Spiralrör 125 mm, 3 m", "Spirorør 125 mm, 3 m"}, "Ventilation", [2]string{"st", "stk"}, 295, 140},
	{[2]string{"Kopparrör 15 mm, 5 m", "Kobberrør 15 mm, 5 m"}, "Plumbing", [2]string{"st", "stk"}, 540, 310},
	{[2]string{"Pressmuff 15 mm", "Pressmuffe 15 mm"}, "Plumbing", [2]string{"st", "stk"}, 48, 21},
	{[2]string{"Köksblandare", "Kjøkkenbatteri"}, "Plumbing", [2]string{"st", "stk"}, 2890, 1650},
	{[2]string{"Termostatventil", "Termostatventil"}, "Plumbing", [2]string{"st", "stk"}, 690, 340},
	{[2]string{"Cirkulationspump", "Sirkulasjonspumpe"}, "Plumbing", [2]string{"st", "stk"}, 4200, 2600},
	{[2]string{"Expansionskärl 18 l", "Ekspansjonskar 18 l"}, "Plumbing", [2]string{"st", "stk"}, 1150, 620},
	{[2]string{"Säkerhetsventil 9 bar", "Sikkerhetsventil 9 bar"}, "Plumbing", [2]string{"st", "stk"}, 380, 170},
	{[2]string{"Varmvattenberedare 300 l", "Varmtvannsbereder 300 l"}, "Plumbing", [2]string{"st", "stk"}, 14900, 9800},
	{[2]string{"Jordfelsbrytare 40 A", "Jordfeilbryter 40 A"}, "Electrical", [2]string{"st", "stk"}, 1290, 640},
	{[2]string{"Installationskabel EKK 3G1,5", "Installasjonskabel PR 3G1,5"}, "Electrical", [2]string{"m", "m"}, 14, 6},
	{[2]string{"Dvärgbrytare 16 A", "Automatsikring 16 A"}, "Electrical", [2]string{"st", "stk"}, 185, 80},
	{[2]string{"Rörelsedetektor", "Bevegelsessensor"}, "Electrical", [2]string{"st", "stk"}, 640, 290},
	{[2]string{"Brandvarnare", "Røykvarsler"}, "Electrical", [2]string{"st", "stk"}, 349, 140},
	{[2]string{"Laddbox 11 kW", "Ladeboks 11 kW"}, "Electrical", [2]string{"st", "stk"}, 12900, 8400},
	{[2]string{"LED-armatur 36 W", "LED-armatur 36 W"}, "Electrical", [2]string{"st", "stk"}, 1190, 520},
	{[2]string{"Årsservice värmepump", "Årlig service varmepumpe"}, "Service", [2]string{"st", "stk"}, 2490, 0},
	{[2]string{"Injustering ventilation", "Innregulering ventilasjon"}, "Service", [2]string{"tim", "t"}, 950, 0},
	{[2]string{"Körersättning", "Kjøregodtgjørelse"}, "Service", [2]string{"km", "km"}, 6.5, 0},
	{[2]string{"Framkörningsavgift", "Fremmøtegebyr"}, "Service", [2]string{"st", "stk"}, 495, 0},
	{[2]string{"Läcksökning köldmedium", "Lekkasjesøk kuldemedium"}, "Service", [2]string{"st", "stk"}, 1850, 0},
	{[2]string{"Rengöring ventilationskanaler", "Rens av ventilasjonskanaler"}, "Service", [2]string{"m", "m"}, 85, 0},
}

func (l demoLocale) createProducts(ctx context.Context, w *writer) error {
	for i, p := range demoProducts {
		nr := l.productStart + i
		in := record(map[string]any{
			"Nr": strconv.Itoa(nr), "Name": p.names[l.lang], "Category": p.category, "Unit": p.unit[l.lang],
			"BasePrice": p.price, "PurchasePrice": p.purchase, "CostPrice": math.Round(p.purchase*108) / 100,
			"Barcode": fmt.Sprintf("73500%08d", nr*7919%100000000),
		})
		if i%5 == 0 {
			in.Extra = map[string]string{"Warranty.Months": strconv.Itoa(12 + 12*(i%3))}
		}
		if err := w.createAll(ctx, "products", in); err != nil {
			return err
		}
	}
	return nil
}

// createCustomers makes customerCount customers from stems × kinds, each
// with one contact (a line of the create) and one extra address.
func (l demoLocale) createCustomers(ctx context.Context, w *writer) error {
	for i := range l.customerCount {
		stem := l.stems[i%len(l.stems)]
		kind := l.kinds[(i/len(l.stems))%len(l.kinds)]
		place := l.places[(i*7)%len(l.places)]
		name := fmt.Sprintf(kind.format, stem)
		nr := strconv.Itoa(l.customerStart + i)
		street := fmt.Sprintf("%s %d", l.streets[(i*5)%len(l.streets)], 1+(i*13)%58)
		mail := slug(name)
		in := record(map[string]any{
			"Nr": nr, "Name": name, "Category": kind.category,
			"AddressLine1": street, "PostalCode": place.postalCode, "City": place.city, "Country": l.country,
			"Phone": l.phone(i), "Email": "info@" + mail + "." + l.mailHost,
			"Custom1": kind.category,
		})
		in.Extra = l.customerExtra(i)
		in.Lines = map[string][]engine.Input{"contacts": {l.contact(i, mail)}}
		if err := l.createCustomer(ctx, w, in, name, place, i); err != nil {
			return err
		}
	}
	for i, in := range l.extraCustomers {
		name, _ := in.Values["Name"].(string)
		place := demoPlace{city: in.Values["City"].(string), postalCode: in.Values["PostalCode"].(string)}
		in.Lines = map[string][]engine.Input{"contacts": {l.contact(100+i, slug(name))}}
		if err := l.createCustomer(ctx, w, in, name, place, 100+i); err != nil {
			return err
		}
	}
	return nil
}

func (l demoLocale) createCustomer(ctx context.Context, w *writer, in engine.Input, name string, place demoPlace, i int) error {
	if err := w.createAll(ctx, "customers", in); err != nil {
		return err
	}
	address := record(map[string]any{
		"CustomerNr":    in.Values["Nr"],
		"OwnerType":     "Customer",
		"OwnerName":     name,
		"Name":          l.addressKinds[i%len(l.addressKinds)],
		"MostImportant": true,
		"AddressLine1":  fmt.Sprintf("%s %d", l.streets[(i*3+1)%len(l.streets)], 2+(i*11)%40),
		"PostalCode":    place.postalCode,
		"City":          place.city,
		"Country":       l.country,
	})
	return w.createAll(ctx, "addresses", address)
}

func (l demoLocale) contact(i int, mail string) engine.Input {
	first := l.firstNames[i%len(l.firstNames)]
	last := l.lastNames[(i*3)%len(l.lastNames)]
	return record(map[string]any{
		"Name": first + " " + last, "Position": l.titles[i%len(l.titles)],
		"Mobile": l.mobile(i), "Email": slug(first) + "." + slug(last) + "@" + mail + "." + l.mailHost,
		"MostImportant": true,
	})
}

// customerExtra gives some customers values for their extra fields.
func (l demoLocale) customerExtra(i int) map[string]string {
	extra := map[string]string{}
	levels := []string{"Bronze", "Silver", "Gold"}
	if i%2 == 0 {
		extra["Service.Level"] = levels[(i/2)%len(levels)]
	}
	if i%3 == 0 {
		extra["contract_end"] = fmt.Sprintf("2027-%02d-%02d", 1+i%12, 1+i%28)
	}
	if i%4 == 0 {
		extra["Credit.Rating"] = []string{"AAA", "AA", "A", "B"}[(i/4)%4]
	}
	return extra
}

func (l demoLocale) createSuppliers(ctx context.Context, w *writer) error {
	for i, s := range l.suppliers {
		place := l.places[(i*3)%len(l.places)]
		for _, p := range l.places {
			if p.city == s.city {
				place = p
			}
		}
		in := record(map[string]any{
			"Nr":           s.nr,
			"Name":         s.name,
			"Category":     s.category,
			"AddressLine1": fmt.Sprintf("%s %d", l.streets[(i*2+3)%len(l.streets)], 10+i*4),
			"PostalCode":   place.postalCode,
			"City":         place.city,
			"Country":      l.country,
			"Phone":        l.phone(200 + i),
			"Email":        "order@" + slug(s.name) + "." + l.mailHost,
		})
		var contacts []engine.Input
		for j, c := range s.contacts {
			name, position, _ := strings.Cut(c, "|")
			contacts = append(contacts, record(map[string]any{
				"Name": name, "Position": position, "Mobile": l.mobile(300 + 10*i + j),
				"Email": slug(strings.Fields(name)[0]) + "@" + slug(s.name) + "." + l.mailHost,
			}))
		}
		in.Lines = map[string][]engine.Input{"contacts": contacts}
		if err := w.createAll(ctx, "suppliers", in); err != nil {
			return err
		}
	}
	return nil
}

// createObjects builds a four-level tree (site → building → unit →
// installation) for the first eight customers. The companies' object
// numbers differ, so each has objects the other does not.
func (l demoLocale) createObjects(ctx context.Context, w *writer) error {
	for i := range 8 {
		customer := strconv.Itoa(l.customerStart + i)
		stem := l.stems[i%len(l.stems)]
		parent := ""
		for level := 1; level <= 4; level++ {
			nr := strconv.Itoa(level*100 + l.objectOffset + i + 1)
			kinds := l.objectKinds[level-1]
			name := fmt.Sprintf("%s %s", kinds[i%len(kinds)], stem)
			if level > 1 {
				name = kinds[i%len(kinds)]
			}
			values := map[string]any{
				"Nr": nr, "Name": name, "Category": l.objectNames[level-1], "CustomerNr": customer,
			}
			if parent != "" {
				values["ParentNr"] = parent
			}
			if err := w.createAll(ctx, fmt.Sprintf("objects%d", level), record(values)); err != nil {
				return err
			}
			parent = nr
		}
	}
	return nil
}

func (l demoLocale) phone(i int) string {
	return fmt.Sprintf("%s %03d %02d %02d", l.phoneArea, 100+(i*37)%900, (i*13)%100, (i*29)%100)
}

func (l demoLocale) mobile(i int) string {
	if l.lang == 1 {
		return fmt.Sprintf("+47 9%02d %02d %03d", (i*17)%100, (i*7)%100, (i*31)%1000)
	}
	return fmt.Sprintf("+46 70 %03d %02d %02d", (i*41)%1000, (i*19)%100, (i*23)%100)
}

// slug makes an e-mail friendly lower-case ASCII name.
func slug(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("å", "a", "ä", "a", "ö", "o", "ø", "o", "æ", "ae", "é", "e", "&", "", " ", "", "-", "", ".", "").Replace(s)
	return s
}

// fieldNameLabels returns field-name records: custom fields of customers
// ("Customer" prefix) and tasks ("Task" prefix), and the object levels.
func fieldNameLabels(customer, task [4]string, levels [4]string) []engine.FieldName {
	var names []engine.FieldName
	for i, label := range customer {
		names = append(names, engine.FieldName{DbFieldName: fmt.Sprintf("CustomerCustom%d", i+1), UserFieldName: label, ListOnly: i == 3, Hidden: i == 2})
	}
	for i, label := range task[:3] {
		names = append(names, engine.FieldName{DbFieldName: fmt.Sprintf("TaskCustomT%d", i+1), UserFieldName: label})
	}
	names = append(names, engine.FieldName{DbFieldName: "TaskCustomA1", UserFieldName: task[3]})
	for i, label := range levels {
		names = append(names, engine.FieldName{DbFieldName: fmt.Sprintf("Object%d", i+1), UserFieldName: label})
	}
	return names
}

// extraDefs returns the extra-field definitions of a demo company, in its
// language: customers and tasks cover Combo, Date, Sql (computed), a
// read-only field, and keys with a dot and an underscore.
func extraDefs(label func(sv, no string) string) []demoExtraDef {
	return []demoExtraDef{
		{register: "customers", key: "Service.Level", name: label("Servicenivå", "Servicenivå"), category: "Service", typ: extraCombo, options: []string{"Bronze", "Silver", "Gold"}},
		{register: "customers", key: "contract_end", name: label("Avtalsslut", "Avtaleslutt"), category: "Service", typ: extraDate},
		{register: "customers", key: "Credit.Rating", name: label("Kreditbetyg", "Kredittvurdering"), category: "Finance", typ: "Text", readOnly: true},
		{register: "customers", key: "Invoice_Email", name: label("Faktura-e-post", "Faktura-e-post"), category: "Finance", typ: "Text"},
		{register: "customers", key: "Display_Name", name: label("Visningsnamn", "Visningsnavn"), category: "General", typ: extraSQL,
			sqlExpr: `COALESCE("name", '') || ' / ' || COALESCE("city", '')`},
		{register: "customers", key: "City.Upper", name: label("Ort (versaler)", "Sted (store bokstaver)"), category: "General", typ: extraSQL,
			sqlExpr: `UPPER(COALESCE("city", ''))`},
		{register: "products", key: "Warranty.Months", name: label("Garanti (månader)", "Garanti (måneder)"), category: "Service", typ: extraNumber},
		{register: "tasks", key: "Visit.Type", name: label("Besökstyp", "Besøkstype"), category: "Planning", typ: extraCombo, options: []string{"Installation", "Service", "Repair", "Inspection"}},
		{register: "tasks", key: "follow_up_date", name: label("Uppföljning", "Oppfølging"), category: "Planning", typ: extraDate},
		{register: "tasks", key: "Internal.Ref", name: label("Intern referens", "Intern referanse"), category: "Admin", typ: "Text", readOnly: true},
		{register: "tasks", key: "Task_Label", name: label("Etikett", "Etikett"), category: "Admin", typ: extraSQL,
			sqlExpr: `'Task ' || COALESCE("nr", '')`},
	}
}

func swedishDemo() demoLocale {
	sv := func(sv, _ string) string { return sv }
	levels := [4]string{"Fastighet", "Byggnad", "Lokal", "Installation"}
	return demoLocale{
		id: "demo", name: "Nordisk Fastighetsservice AB", timeZone: "Europe/Stockholm",
		country: "Sverige", phoneArea: "+46 8", mailHost: "se", lang: 0,
		users: []demoUser{
			{"API", "API-integration", "Active", "+46 8 555 100 00", "api@nordiskservice.se", "*"},
			{"ANLI", "Anna Lindqvist", "Active", "+46 70 123 45 67", "anna.lindqvist@nordiskservice.se", "*"},
			{"ERJO", "Erik Johansson", "Active", "+46 70 234 56 78", "erik.johansson@nordiskservice.se", "customers:read"},
			{"MASV", "Maria Svensson", "Active", "+46 70 345 67 89", "maria.svensson@nordiskservice.se", "contacts:read,contacts:write,products:read"},
			{"OLBE", "Olle Berg", "Passive", "+46 70 456 78 90", "olle.berg@nordiskservice.se", "*"},
		},
		timeTypes: []map[string]any{
			{"Name": "Normaltid", "Status": "Active", "Unit": "tim", "BasePrice": 695.0, "CostPrice": 430.0, "ProductNr": nil, "InternalType": false, "ResourceType": false, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#2E7D32", "SpecOptions": []string{"Installation", "Service", "Felsökning"}, "DateType": "FromTo"},
			{"Name": "Övertid 50%", "Status": "Active", "Unit": "tim", "BasePrice": 1040.0, "CostPrice": 640.0, "InternalType": false, "ResourceType": false, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#F9A825", "SpecOptions": []string{}, "DateType": "FromTo"},
			{"Name": "Resa, km/dag", "Status": "Active", "Unit": "km", "BasePrice": 6.5, "CostPrice": 2.5, "InternalType": false, "ResourceType": true, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#1565C0", "SpecOptions": []string{"Tur och retur", "Enkel resa"}, "DateType": "Day"},
			{"Name": "Semester", "Status": "Active", "Unit": "dag", "BasePrice": 0.0, "CostPrice": 0.0, "InternalType": true, "ResourceType": false, "BookingType": true, "Summable": false, "ShowInCalendar": true, "Color": "#8E24AA", "SpecOptions": []string{}, "DateType": "Day"},
			{"Name": "Sjukfrånvaro", "Status": "Active", "Unit": "dag", "BasePrice": 0.0, "CostPrice": 0.0, "InternalType": true, "ResourceType": false, "BookingType": true, "Summable": false, "ShowInCalendar": true, "Color": "#C62828", "SpecOptions": []string{}, "DateType": "Day"},
			{"Name": "Utbildning/kurs, intern", "Status": "Active", "Unit": "tim", "BasePrice": 0.0, "CostPrice": 430.0, "InternalType": true, "ResourceType": false, "BookingType": true, "Summable": true, "ShowInCalendar": true, "Color": "#6D4C41", "SpecOptions": []string{}, "DateType": "FromTo"},
			{"Name": "Gammal restidstaxa", "Status": "Archived", "Unit": "tim", "BasePrice": 450.0, "CostPrice": 300.0, "InternalType": false, "ResourceType": false, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#9E9E9E", "SpecOptions": []string{}, "DateType": "FromTo"},
		},
		priceLists: []map[string]any{
			{"Nr": "1", "Name": "Standardprislista", "Status": "Active", "HasMarkupPct": false, "MarkupPct": 0.0, "Note": "Gäller alla kunder utan avtal"},
			{"Nr": "2", "Name": "Avtalskunder", "Status": "Active", "HasMarkupPct": true, "MarkupPct": 12.5, "Note": "Påslag på inköpspris för avtalskunder"},
			{"Nr": "3", "Name": "Prislista 2023", "Status": "Archived", "HasMarkupPct": true, "MarkupPct": 18.0, "Note": "Ersatt 2024-01-01"},
		},
		productStart: 4001,
		resources: []map[string]any{
			{"Nr": "1", "Name": "Servicebil VW Transporter (ABC 123)", "Category": "Fordon", "ProductNr": "4027", "LogUnit": "km", "BasePrice": 6.5, "CostPrice": 2.5},
			{"Nr": "2", "Name": "Servicebil Ford Transit (DEF 456)", "Category": "Fordon", "ProductNr": "4027", "LogUnit": "km", "BasePrice": 6.5, "CostPrice": 2.8},
			{"Nr": "3", "Name": "Saxlift Genie GS-1932", "Category": "Maskin", "LogUnit": "dag", "BasePrice": 1450.0, "CostPrice": 600.0},
			{"Nr": "4", "Name": "Läcksökare köldmedium", "Category": "Instrument", "ProductNr": "4029", "LogUnit": "tim", "BasePrice": 250.0, "CostPrice": 40.0},
		},
		places: []demoPlace{
			{"Stockholm", "111 22"}, {"Göteborg", "411 05"}, {"Malmö", "211 20"}, {"Uppsala", "753 20"},
			{"Västerås", "722 15"}, {"Örebro", "702 10"}, {"Linköping", "582 22"}, {"Helsingborg", "252 21"},
			{"Jönköping", "553 16"}, {"Norrköping", "602 24"}, {"Umeå", "903 26"}, {"Luleå", "972 31"},
		},
		stems: []string{"Bergström", "Lindgren", "Ekholm", "Sjöberg", "Norrsken", "Fjällvik", "Granlund", "Åkerlund",
			"Strandvik", "Björkhagen", "Solberga", "Havsutsikt", "Östergården", "Skogsbacken", "Ljungby", "Kvarnholmen",
			"Tallåsen", "Vikingsberg", "Rosendal", "Älvsborg"},
		kinds: []demoKind{
			{"%s Fastigheter AB", "Fastighetsbolag"},
			{"Brf %s", "Bostadsrättsförening"},
			{"%s Livs AB", "Handel"},
		},
		customerStart: 1001, customerCount: 60,
		firstNames:   []string{"Anna", "Erik", "Maria", "Lars", "Karin", "Johan", "Eva", "Anders", "Sofia", "Magnus", "Ingrid", "Per", "Linnea", "Nils", "Elin"},
		lastNames:    []string{"Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Svensson", "Gustafsson", "Pettersson", "Jonsson", "Lindström"},
		titles:       []string{"Fastighetsförvaltare", "Driftchef", "Ordförande", "Butikschef", "Teknisk förvaltare"},
		streets:      []string{"Storgatan", "Kungsgatan", "Drottninggatan", "Sveavägen", "Industrivägen", "Hamngatan", "Skolgatan", "Parkvägen", "Ringvägen", "Järnvägsgatan"},
		addressKinds: []string{"Leveransadress", "Fakturaadress", "Besöksadress"},
		suppliers: []demoSupplier{
			{"201", "Nordisk VVS-grossist AB", "VVS", "Göteborg", []string{"Henrik Ek|Säljare", "Lena Holm|Ordermottagning"}},
			{"202", "ElektroPartner Sverige AB", "El", "Stockholm", []string{"Johan Ström|Key account manager"}},
			{"203", "Kylteknik i Norden AB", "Kyla", "Malmö", []string{"Sara Wik|Teknisk support"}},
			{"204", "Ventilationsdepån AB", "Ventilation", "Uppsala", []string{"Mats Lund|Säljare", "Frida Berg|Inköp"}},
			{"205", "Verktygshuset i Västerås AB", "Verktyg", "Västerås", []string{"Peter Falk|Butikschef"}},
			{"206", "Säkerhetslås Syd AB", "Lås", "Helsingborg", []string{"Camilla Ros|Säljare"}},
		},
		objectNames: levels,
		objectKinds: [4][]string{
			{"Fastigheten", "Kvarteret"},
			{"Hus A", "Hus B", "Garagebyggnad"},
			{"Källarplan", "Plan 1", "Lokal 101", "Tvättstuga"},
			{"Värmepump NIBE F1255", "FTX-aggregat Swegon", "Varmvattenberedare 300 l", "Laddbox garage"},
		},
		projects: []map[string]any{
			{"Nr": "101", "Name": "Stambyte Brf Solberga", "CustomerNr": "1031", "CustomerRef": "Styrelsen", "Owner": "ANLI", "Status": "Active", "PlanStartDate": "2025-03-01", "PlanStopDate": "2025-11-30", "CreatedBy": "ANLI", "CreatedDate": "2025-01-15"},
			{"Nr": "102", "Name": "Byte till bergvärme Ekholm", "CustomerNr": "1003", "Owner": "ANLI", "Status": "Active", "PlanStartDate": "2025-05-05", "PlanStopDate": "2025-06-20", "CreatedBy": "API", "CreatedDate": "2025-02-03"},
			{"Nr": "103", "Name": "OVK-besiktning Lindgren", "CustomerNr": "1002", "Owner": "MASV", "Status": "Planned", "PlanStartDate": "2025-09-01", "CreatedBy": "MASV", "CreatedDate": "2025-04-10"},
			{"Nr": "104", "Name": "Laddstolpar Bergström", "CustomerNr": "1001", "Owner": "ANLI", "Status": "Finished", "Object1Nr": "101", "CreatedBy": "ANLI", "CreatedDate": "2024-10-01"},
		},
		contracts: []map[string]any{
			{"Nr": "7001", "CustomerNr": "1001", "CustomerRef": "Förvaltning", "Status": "Active", "StartDate": "2024-01-01", "StopDate": "2026-12-31", "Object1Nr": "101", "Note": "Årlig service värmepumpar"},
			{"Nr": "7002", "CustomerNr": "1002", "Status": "Active", "StartDate": "2024-04-01", "StopDate": "2025-03-31", "LastGenerationDate": "2025-01-01", "IsGenerated": true, "Object1Nr": "102", "Note": "Filterbyte FTX två gånger per år"},
			{"Nr": "7003", "CustomerNr": "1021", "Status": "Active", "StartDate": "2025-01-01", "Note": "Jour och felavhjälpning"},
			{"Nr": "7004", "CustomerNr": "1005", "Status": "Ended", "StartDate": "2022-01-01", "StopDate": "2023-12-31", "Note": "Avslutat avtal"},
		},
		extraDefs: extraDefs(sv),
		fieldNames: fieldNameLabels(
			[4]string{"Kundgrupp", "Fakturareferens", "Nyckelskåp", "Portkod"},
			[4]string{"Arbetsorder", "Våning", "Tillträde", "Säkerhetsanvisning"},
			levels),
	}
}

func norwegianDemo() demoLocale {
	no := func(_, no string) string { return no }
	levels := [4]string{"Eiendom", "Bygg", "Lokale", "Anlegg"}
	return demoLocale{
		id: "demo2", name: "Fjordteknikk Service AS", timeZone: "Europe/Oslo",
		country: "Norge", phoneArea: "+47 22", mailHost: "no", lang: 1,
		users: []demoUser{
			{"API", "API-integrasjon", "Active", "+47 22 55 10 00", "api@fjordteknikk.no", "*"},
			{"INSO", "Ingrid Solberg", "Active", "+47 912 34 567", "ingrid.solberg@fjordteknikk.no", "*"},
			{"KANO", "Kari Nordmann", "Active", "+47 923 45 678", "kari.nordmann@fjordteknikk.no", "customers:read"},
			{"OLHA", "Ola Hansen", "Passive", "+47 934 56 789", "ola.hansen@fjordteknikk.no", "*"},
		},
		timeTypes: []map[string]any{
			{"Name": "Normaltid", "Status": "Active", "Unit": "t", "BasePrice": 890.0, "CostPrice": 520.0, "InternalType": false, "ResourceType": false, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#2E7D32", "SpecOptions": []string{"Montering", "Service"}, "DateType": "FromTo"},
			{"Name": "Overtid 100%", "Status": "Active", "Unit": "t", "BasePrice": 1780.0, "CostPrice": 1040.0, "InternalType": false, "ResourceType": false, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#F9A825", "SpecOptions": []string{}, "DateType": "FromTo"},
			{"Name": "Reise, km/dag", "Status": "Active", "Unit": "km", "BasePrice": 5.0, "CostPrice": 3.5, "InternalType": false, "ResourceType": true, "BookingType": false, "Summable": true, "ShowInCalendar": false, "Color": "#1565C0", "SpecOptions": []string{}, "DateType": "Day"},
			{"Name": "Ferie", "Status": "Active", "Unit": "dag", "BasePrice": 0.0, "CostPrice": 0.0, "InternalType": true, "ResourceType": false, "BookingType": true, "Summable": false, "ShowInCalendar": true, "Color": "#8E24AA", "SpecOptions": []string{}, "DateType": "Day"},
			{"Name": "Sykefravær", "Status": "Active", "Unit": "dag", "BasePrice": 0.0, "CostPrice": 0.0, "InternalType": true, "ResourceType": false, "BookingType": true, "Summable": false, "ShowInCalendar": true, "Color": "#C62828", "SpecOptions": []string{}, "DateType": "Day"},
		},
		priceLists: []map[string]any{
			{"Nr": "1", "Name": "Standard", "Status": "Active", "HasMarkupPct": false, "MarkupPct": 0.0},
			{"Nr": "4", "Name": "Rammeavtale", "Status": "Active", "HasMarkupPct": true, "MarkupPct": 10.0, "Note": "Påslag for rammeavtalekunder"},
		},
		productStart: 6001,
		resources: []map[string]any{
			{"Nr": "11", "Name": "Servicebil Toyota Proace (EL 12345)", "Category": "Kjøretøy", "ProductNr": "6027", "LogUnit": "km", "BasePrice": 5.0, "CostPrice": 2.0},
			{"Nr": "12", "Name": "Stillas 20 m²", "Category": "Utstyr", "LogUnit": "dag", "BasePrice": 900.0, "CostPrice": 350.0},
			{"Nr": "13", "Name": "Termografikamera", "Category": "Instrument", "LogUnit": "t", "BasePrice": 300.0, "CostPrice": 50.0},
		},
		places: []demoPlace{
			{"Oslo", "0150"}, {"Bergen", "5003"}, {"Trondheim", "7011"}, {"Stavanger", "4006"},
			{"Tromsø", "9008"}, {"Drammen", "3015"}, {"Kristiansand", "4611"}, {"Bodø", "8006"},
		},
		stems: []string{"Fjordheim", "Nordlys", "Solsiden", "Bjørkeli", "Havnegata", "Granly", "Lindeberg",
			"Skogstua", "Vestli", "Åsheim"},
		kinds: []demoKind{
			{"%s Eiendom AS", "Eiendomsselskap"},
			{"%s Borettslag", "Borettslag"},
		},
		customerStart: 5001, customerCount: 20,
		extraCustomers: []engine.Input{record(map[string]any{
			"Nr": "1001", "Name": "Bryggen Kontorsenter AS", "Category": "Eiendomsselskap",
			"AddressLine1": "Bryggen 12", "PostalCode": "5003", "City": "Bergen", "Country": "Norge",
			"Phone": "+47 55 30 10 01", "Email": "post@bryggenkontor.no", "Note": "Samme kundenummer som i demo, annet innhold",
		})},
		firstNames:   []string{"Kari", "Ola", "Ingrid", "Lars", "Silje", "Magnus", "Nora", "Henrik", "Ida", "Sindre"},
		lastNames:    []string{"Hansen", "Johansen", "Olsen", "Larsen", "Andersen", "Pedersen", "Nilsen", "Kristiansen", "Berg"},
		titles:       []string{"Eiendomsforvalter", "Driftsleder", "Styreleder", "Vaktmester"},
		streets:      []string{"Storgata", "Kongens gate", "Dronningens gate", "Strandveien", "Industriveien", "Kirkegata"},
		addressKinds: []string{"Leveringsadresse", "Fakturaadresse", "Besøksadresse"},
		suppliers: []demoSupplier{
			{"301", "Rørgrossisten AS", "VVS", "Oslo", []string{"Terje Lie|Selger"}},
			{"302", "Elektroengros Norge AS", "Elektro", "Bergen", []string{"Marte Dahl|Kundeansvarlig"}},
			{"303", "Kuldeteknikk Vest AS", "Kulde", "Stavanger", []string{"Jon Vik|Teknisk support"}},
			{"304", "Ventilasjonslageret AS", "Ventilasjon", "Trondheim", []string{"Hilde Moe|Innkjøp", "Per Aas|Selger"}},
			{"305", "Verktøysentralen Drammen AS", "Verktøy", "Drammen", []string{"Geir Lund|Butikksjef"}},
		},
		objectNames:  levels,
		objectOffset: 50,
		objectKinds: [4][]string{
			{"Eiendommen", "Kvartalet"},
			{"Blokk A", "Blokk B"},
			{"Kjeller", "1. etasje", "Fyrrom"},
			{"Varmepumpe Mitsubishi", "Ventilasjonsaggregat Flexit", "Ladeboks"},
		},
		projects: []map[string]any{
			{"Nr": "201", "Name": "Rehabilitering fyrrom Fjordheim", "CustomerNr": "5001", "Owner": "INSO", "Status": "Active", "PlanStartDate": "2025-04-01", "PlanStopDate": "2025-08-31"},
			{"Nr": "202", "Name": "Ventilasjon Nordlys Borettslag", "CustomerNr": "5012", "Owner": "INSO", "Status": "Planned", "PlanStartDate": "2025-10-01"},
			{"Nr": "203", "Name": "Ladeanlegg Bryggen", "CustomerNr": "1001", "Owner": "KANO", "Status": "Active"},
		},
		contracts: []map[string]any{
			{"Nr": "8001", "CustomerNr": "5001", "Status": "Active", "StartDate": "2024-01-01", "StopDate": "2026-12-31", "Object1Nr": "151", "Note": "Årlig service varmepumper"},
			{"Nr": "8002", "CustomerNr": "5002", "Status": "Active", "StartDate": "2025-01-01", "Note": "Filterbytte to ganger i året"},
			{"Nr": "8003", "CustomerNr": "1001", "Status": "Active", "StartDate": "2025-06-01", "StopDate": "2027-05-31", "Note": "Vaktordning"},
		},
		extraDefs: extraDefs(no),
		fieldNames: fieldNameLabels(
			[4]string{"Kundegruppe", "Fakturareferanse", "Nøkkelboks", "Portkode"},
			[4]string{"Arbeidsordre", "Etasje", "Adgang", "Sikkerhetsinstruks"},
			levels),
	}
}
