package sqlengine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"fieldapi/engine"
)

// The demo tasks: "demo" has 64 (10001-10064), "demo2" 10 (50001-50010)
// plus a task 10001 of its own, so each company has task numbers the
// other lacks and one both have with different content. Tasks cover every
// status, assignees (some added after the task was sent, so their own
// statuses differ and the action text carries the bracket marking), every
// kind of plan date, material and time lines, extra-field values,
// documents of every kind (the first task of each company has all of
// them) and some pinned positions. Everything derives from the task's
// index, so every load gives the same data.

var demoTaskRanges = [2]struct{ start, count int }{{10001, 64}, {50001, 10}}

// demoJob is a kind of work a demo task does, in Swedish and Norwegian.
type demoJob struct {
	task, action [2]string
	visit        string // the Visit.Type extra field
	products     []int  // indexes into demoProducts
}

var demoJobs = []demoJob{
	{[2]string{"Årsservice värmepump", "Årlig service varmepumpe"}, [2]string{"Bytt filter, kontrollerat köldmedietryck och larm", "Byttet filter, kontrollert kuldemedietrykk og alarm"}, "Service", []int{24, 4}},
	{[2]string{"Filterbyte FTX-aggregat", "Filterbytte ventilasjonsaggregat"}, [2]string{"Filter bytta, aggregatet injusterat", "Filter byttet, aggregatet innregulert"}, "Service", []int{5}},
	{[2]string{"Felsökning laddbox, löser ut", "Feilsøking ladeboks, løser ut"}, [2]string{"Jordfelsbrytare bytt, laddning provad", "Jordfeilbryter byttet, lading testet"}, "Repair", []int{17}},
	{[2]string{"Installation luft/luft-värmepump", "Montering luft/luft-varmepumpe"}, [2]string{"Inomhusdel och utedel monterade, driftsatt", "Innedel og utedel montert, satt i drift"}, "Installation", []int{1, 9, 10}},
	{[2]string{"Byte av cirkulationspump", "Bytte av sirkulasjonspumpe"}, [2]string{"Pump bytt, systemet avluftat", "Pumpe byttet, anlegget luftet"}, "Repair", []int{13}},
	{[2]string{"OVK-besiktning", "Ventilasjonskontroll"}, [2]string{"Flöden uppmätta, protokoll upprättat", "Luftmengder målt, protokoll skrevet"}, "Inspection", []int{25}},
	{[2]string{"Läckande köksblandare", "Lekkende kjøkkenbatteri"}, [2]string{"Blandare bytt", "Batteri byttet"}, "Repair", []int{11}},
	{[2]string{"Byte varmvattenberedare 300 l", "Bytte varmtvannsbereder 300 l"}, [2]string{"Beredare och säkerhetsventil bytta", "Bereder og sikkerhetsventil byttet"}, "Installation", []int{16, 15}},
	{[2]string{"Kontroll av brandvarnare", "Kontroll av røykvarslere"}, [2]string{"Samtliga brandvarnare testade, två bytta", "Alle røykvarslere testet, to byttet"}, "Inspection", []int{21}},
	{[2]string{"Installation laddbox garage", "Montering ladeboks garasje"}, [2]string{"Laddbox monterad och ansluten", "Ladeboks montert og tilkoblet"}, "Installation", []int{22, 18}},
	{[2]string{"Läcksökning köldmedium", "Lekkasjesøk kuldemedium"}, [2]string{"Läcka tätad, köldmedium påfyllt", "Lekkasje tettet, kuldemedium etterfylt"}, "Repair", []int{28, 3}},
	{[2]string{"Rengöring ventilationskanaler", "Rens av ventilasjonskanaler"}, [2]string{"Kanaler rengjorda", "Kanaler renset"}, "Service", []int{29}},
}

// createTasks stores the company's task status rules, then loads its tasks.
func (l demoLocale) createTasks(ctx context.Context, w *writer) error {
	if err := saveTaskStatusRules(ctx, w.tx, w.s.Company, referenceTaskStatusRules()); err != nil {
		return err
	}
	manual, err := writeDemoManual()
	if err != nil {
		return err
	}
	t := w.e.tables["tasks"]
	r := demoTaskRanges[l.lang]
	for i := range r.count {
		if err := l.createTask(ctx, w, t, i, strconv.Itoa(r.start+i), manual); err != nil {
			return err
		}
	}
	if l.lang == 1 {
		// The task number both companies have, with content of its own.
		return l.createTask(ctx, w, t, 7, "10001", manual)
	}
	return nil
}

// createTask creates demo task number i with its documents, a later
// assignee and a pinned position where the index says so.
func (l demoLocale) createTask(ctx context.Context, w *writer, t *table, i int, nr, manual string) error {
	task := l.demoTask(i, nr)
	c, err := w.create(ctx, t, task, nil, nil)
	if err != nil {
		return fmt.Errorf("task %s: %w", nr, err)
	}
	techs := l.technicians()
	if status := task.Values["Status"]; i%4 == 1 && status != "Planned" && len(task.Values["UserSigns"].([]string)) == 1 {
		// A second technician joins a task already under way: they start
		// at Planned, and the action text is marked with the first one.
		in := record(map[string]any{"UserSigns": []string{techs[i%len(techs)], techs[(i+1)%len(techs)]}})
		if _, err := w.update(ctx, t, nr, in); err != nil {
			return fmt.Errorf("task %s: %w", nr, err)
		}
	}
	for _, d := range l.demoDocuments(i, manual) {
		if _, err := w.addDocument(ctx, t, c.seq, d); err != nil {
			return err
		}
	}
	if i%10 == 3 {
		return l.pinTask(ctx, w, t, c.seq, i)
	}
	return nil
}

// demoTask is the input of demo task number i.
func (l demoLocale) demoTask(i int, nr string) engine.Input {
	job := demoJobs[i%len(demoJobs)]
	techs := l.technicians()
	status := taskStatuses[i%len(taskStatuses)]
	owner := techs[0]
	switch {
	case i%9 == 8:
		owner, status = "", "Planned" // not yet given to anyone: no status changes until it has an owner
	case i%2 == 1:
		owner = "API"
	}
	customer := (i * 7) % l.customerCount
	values := map[string]any{
		"Nr": nr, "CustomerNr": strconv.Itoa(l.customerStart + customer), "Status": status,
		"TaskText": job.task[l.lang], "OwnerSign": owner, "UserSigns": demoAssignees(techs, i, status),
		"CustomerOrderer": l.firstNames[customer%len(l.firstNames)] + " " + l.lastNames[(customer*3)%len(l.lastNames)],
		"CustomerRef":     fmt.Sprintf("PO-%d", 4500+i*3),
		"EstimatedTime":   float64(1 + i%8),
		"CustomT1":        "AO-" + nr,
	}
	switch {
	case slices.Index(taskStatuses, status) >= slices.Index(taskStatuses, "InProgress"):
		values["ActionText"] = job.action[l.lang] // what was done
	case status != "Planned":
		values["ActionText"] = l.text("Ring kunden en halvtimme före ankomst", "Ring kunden en halvtime før ankomst")
	}
	if i%4 == 0 {
		values["PriceListNr"] = l.markupPriceList()
	}
	if customer < 8 { // the customers with objects (createObjects)
		for level := 1; level <= 4; level++ {
			values[fmt.Sprintf("Object%dNr", level)] = strconv.Itoa(level*100 + l.objectOffset + customer + 1)
		}
	}
	if i%13 == 0 {
		values["ProjectNr"] = l.projects[0]["Nr"]
	}
	start := demoPlanDate(i)
	if i%11 != 10 {
		setDemoPlan(values, i, start)
	}

	in := record(values)
	in.Extra = map[string]string{"Visit.Type": job.visit}
	if i%4 == 0 {
		in.Extra["follow_up_date"] = start.AddDate(0, 1, 0).Format(dateOnly)
	}
	if i%3 == 0 {
		in.Extra["Internal.Ref"] = fmt.Sprintf("INT-%s-%02d", l.id, i)
	}
	if status != "Planned" || i%2 == 0 {
		for k, p := range job.products {
			line := map[string]any{"ProductNr": strconv.Itoa(l.productStart + p), "Quantity": float64(1 + (i+k)%3)}
			if i%10 == 5 && k == 0 {
				line["Price"] = 100.0 * float64(1+i%7) // a price agreed with the customer
			}
			in.AddLine("materials", record(line))
		}
	}
	if slices.Index(taskStatuses, status) >= slices.Index(taskStatuses, "InProgress") {
		sign := owner
		if assignees := demoAssignees(techs, i, status); len(assignees) > 0 {
			sign = assignees[0]
		}
		if sign == "" {
			sign = "API"
		}
		day := start.Format(dateOnly)
		in.AddLine("times", record(map[string]any{"TimeType": l.timeTypes[0]["Name"], "UserSign": sign,
			"Hours": 1.5 + float64(i%4), "Date": day, "Spec": job.visit}))
		if i%3 == 0 {
			in.AddLine("times", record(map[string]any{"TimeType": l.timeTypes[2]["Name"], "UserSign": sign,
				"Hours": float64(20 + i%40), "Date": day}))
		}
	}
	return in
}

const dateOnly = "2006-01-02"

// demoPlanDate is the planned day of task i: one working day after the
// other from Monday 5 May 2025.
func demoPlanDate(i int) time.Time {
	return time.Date(2025, 5, 5, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i/5*7+i%5)
}

// setDemoPlan gives task i a plan of one of the five kinds; the rules
// infer the type and stop where the kind leaves them out.
func setDemoPlan(values map[string]any, i int, start time.Time) {
	day := start.Format(dateOnly)
	switch i % 5 {
	case 0: // a day: type and stop inferred
		values["PlanStartDate"] = day
	case 1: // a morning: FromTo inferred from the clock times
		values["PlanStartDate"], values["PlanStopDate"] = day+"T08:00:00", day+"T11:30:00"
	case 2: // several days
		values["PlanStartDate"], values["PlanStopDate"], values["PlanDateType"] = day, start.AddDate(0, 0, 2).Format(dateOnly), "FromTo"
	case 3: // some time that week
		values["PlanStartDate"], values["PlanStopDate"], values["PlanDateType"] = day, start.AddDate(0, 0, 4).Format(dateOnly), "Week"
	case 4: // a fixed appointment: the stop is the end of the day
		values["PlanStartDate"], values["PlanDateType"] = day+"T13:30:00", "Fixed"
	}
}

// demoAssignees are none, one or two of the technicians; a task that has
// left planning has at least one.
func demoAssignees(techs []string, i int, status string) []string {
	n := (i + i/6) % 3 // shifts each round of statuses
	if status != "Planned" {
		n = 1 + (i+i/6)%2
	}
	signs := []string{}
	for k := range n {
		signs = append(signs, techs[(i+k)%len(techs)])
	}
	return signs
}

// technicians are the company's active users other than the integration.
func (l demoLocale) technicians() []string {
	var signs []string
	for _, u := range l.users {
		if u.status == "Active" && u.sign != "API" {
			signs = append(signs, u.sign)
		}
	}
	return signs
}

// markupPriceList is the number of the company's active price list with a markup.
func (l demoLocale) markupPriceList() string {
	for _, p := range l.priceLists {
		if p["HasMarkupPct"] == true && p["Status"] == "Active" {
			return p["Nr"].(string)
		}
	}
	return ""
}

// pinTask fixes the position of task i near its customer's city centre,
// where the technician parks, as a dispatcher would with PUT …/location.
func (l demoLocale) pinTask(ctx context.Context, w *writer, t *table, seq int64, i int) error {
	customer := (i * 7) % l.customerCount         // as demoTask picks it
	place := l.places[(customer*7)%len(l.places)] // as createCustomers placed it
	pos, err := Gazetteer{}.Geocode(ctx, Address{City: place.city})
	if err != nil || pos.Status != locFound {
		return fmt.Errorf("demo place %s is not in the gazetteer", place.city)
	}
	offset := 0.0011 * float64(1+i%5)
	row := locationRow{Address: l.text("Parkering vid servicebilens plats", "Parkering ved servicebilens plass") + ", " + place.city,
		Status: locFound, SourceType: "Manual", Fixed: true}
	row.Latitude.Float64, row.Latitude.Valid = pos.Latitude+offset, true
	row.Longitude.Float64, row.Longitude.Valid = pos.Longitude-offset, true
	return w.e.saveLocation(ctx, w.tx, t, w.s.Company, seq, row)
}

// text picks the company's language.
func (l demoLocale) text(sv, no string) string {
	if l.lang == 1 {
		return no
	}
	return sv
}
