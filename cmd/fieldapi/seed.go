package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"fieldapi/engine"
	"fieldapi/engine/dataset"
	"fieldapi/engine/demo"
	"fieldapi/engine/names"
	"fieldapi/engine/reference"
)

// seed serves "fieldapi seed": fill a company with bulk data for load
// tests — customers with objects, tasks with material and time lines,
// orders with lines — through the engine's bulk path (BulkInsert), a batch
// per transaction. The company's products, users and time types (the demo
// data, loaded first when missing) are what the records refer to.
func (a *app) seed(ctx context.Context, args []string) error {
	fs := newFlagSet("seed", "seed --db DSN [--company ID] [--tasks N] [--customers N] [--objects N] [--orders N]", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	company := fs.String("company", "demo", "company to fill (demo data is loaded first when it is missing)")
	sign := fs.String("sign", "API", "signature whose reads find the products, users and time types referred to")
	var plan seedPlan
	var customers, objects, orders countFlag
	fs.IntVar(&plan.tasks, "tasks", 100_000, "tasks to add, each with 1-3 material lines and 1-2 time lines")
	fs.Var(&customers, "customers", "`N` customers to add (default: tasks/50, at least 10)")
	fs.Var(&objects, "objects", "`N` installations (objects1) to add (default: 2 per customer)")
	fs.Var(&orders, "orders", "`N` orders to add, each with 1-4 lines (default: tasks/20)")
	fs.IntVar(&plan.batch, "batch", 5_000, "records of the main register per transaction")
	seedValue := fs.Uint64("seed", 1, "random seed: the same seed makes the same data")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	plan.countsOrDefaults(customers, objects, orders)
	if err := plan.check(); err != nil {
		return usageError{err}
	}
	eng, err := openEngine(ctx, *dsn, reference.Options{}, creating)
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := eng.Migrate(ctx); err != nil {
		return migrationError(err, *dsn)
	}
	if err := demo.Load(ctx, eng); err != nil {
		return fmt.Errorf("load demo data: %w", err)
	}
	s := &seeder{eng: eng, company: *company, rnd: rand.New(rand.NewPCG(*seedValue, 0x5eed)), plan: plan}
	if err := s.readReferences(ctx, engine.Session{Company: *company, Sign: *sign, ClientID: "seed"}); err != nil {
		return err
	}
	s.progress = newSeedProgress(a.stderr, plan.total())
	began := time.Now()
	steps := []func(context.Context) error{s.seedCustomers, s.seedObjects, s.seedTasks, s.seedOrders}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			s.progress.Close()
			return err
		}
	}
	s.progress.Close()
	if err := eng.Analyze(ctx); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	fmt.Fprintf(a.stdout, "seeded %s in %s: %d customers, %d objects, %d tasks with %d material and %d time lines, %d orders with %d lines\n",
		*company, time.Since(began).Round(time.Second), plan.customers, plan.objects, plan.tasks,
		s.written[names.Materials], s.written[names.Times], plan.orders, s.written[names.OrderLines])
	return nil
}

// seedPlan is how many records of each kind to add.
type seedPlan struct {
	tasks, customers, objects, orders, batch int
}

// countsOrDefaults sets the counts given, and works out the others from
// the number of tasks.
func (p *seedPlan) countsOrDefaults(customers, objects, orders countFlag) {
	p.customers = customers.or(max(10, p.tasks/50))
	p.objects = objects.or(2 * p.customers)
	p.orders = orders.or(p.tasks / 20)
}

func (p seedPlan) check() error {
	switch {
	case p.tasks < 0 || p.objects < 0 || p.orders < 0:
		return errors.New("seed: counts cannot be negative")
	case p.customers < 1:
		return errors.New("seed: --customers must be at least 1 (tasks and orders need one)")
	case p.batch < 1:
		return errors.New("seed: --batch must be at least 1")
	}
	return nil
}

// total is the number of main records (lines not included), the unit of
// the progress bar.
func (p seedPlan) total() int { return p.customers + p.objects + p.tasks + p.orders }

// seeder writes one company's bulk data.
type seeder struct {
	eng      *reference.Engine
	company  string
	rnd      *rand.Rand
	plan     seedPlan
	progress seedProgress
	written  map[string]int // lines written, by register

	products  []product
	users     []string
	timeTypes []string
	customers []customerRef // as seeded
	objects   [][]string    // object numbers by customers index
}

type product struct {
	nr, name, unit string
	price          float64
}

type customerRef struct{ nr, name string }

// readReferences lists what the seeded records refer to, through the
// engine's ordinary reads.
func (s *seeder) readReferences(ctx context.Context, session engine.Session) error {
	read := func(register string) ([]engine.Record, error) {
		page, err := s.eng.List(ctx, session, register, engine.Query{Limit: 500})
		if err != nil {
			return nil, fmt.Errorf("read %s of %s: %w", register, s.company, err)
		}
		if len(page.Records) == 0 {
			return nil, fmt.Errorf("company %s has no %s to refer to", s.company, register)
		}
		return page.Records, nil
	}
	text := func(r engine.Record, name string) string { v, _ := r[name].(string); return v }
	products, err := read(names.Products)
	if err != nil {
		return err
	}
	for _, p := range products {
		price, _ := p[names.ProductBasePrice].(float64)
		s.products = append(s.products, product{nr: text(p, names.ProductNr), name: text(p, names.ProductName), unit: text(p, names.ProductUnit), price: price})
	}
	users, err := read(names.Users)
	if err != nil {
		return err
	}
	for _, u := range users {
		s.users = append(s.users, text(u, names.UserSign))
	}
	timeTypes, err := read(names.TimeTypes)
	if err != nil {
		return err
	}
	for _, tt := range timeTypes {
		s.timeTypes = append(s.timeTypes, text(tt, names.TimeTypeName))
	}
	s.written = map[string]int{}
	return nil
}

// inBatches runs write for consecutive ranges [from, to) of n records,
// at most plan.batch at a time, numbered from the register's series.
func (s *seeder) inBatches(ctx context.Context, register string, n int, write func(numbers []int64, from, to int) []dataset.Register) error {
	if n == 0 {
		return nil
	}
	numbers, err := s.eng.ReserveNumbers(ctx, s.company, register, n)
	if err != nil {
		return err
	}
	for from := 0; from < n; from += s.plan.batch {
		to := min(from+s.plan.batch, n)
		regs := write(numbers, from, to)
		if err := s.eng.BulkInsert(ctx, s.company, regs); err != nil {
			return err
		}
		for _, r := range regs[1:] {
			s.written[r.Name] += len(r.Records)
		}
		s.progress.Add(to - from)
	}
	return nil
}

func nr(numbers []int64, i int) string { return strconv.FormatInt(numbers[i], 10) }

func (s *seeder) seedCustomers(ctx context.Context) error {
	return s.inBatches(ctx, names.Customers, s.plan.customers, func(numbers []int64, from, to int) []dataset.Register {
		recs := make([]dataset.Record, 0, to-from)
		for i := from; i < to; i++ {
			name := s.companyName()
			city := pick(s.rnd, seedCities)
			s.customers = append(s.customers, customerRef{nr: nr(numbers, i), name: name})
			recs = append(recs, dataset.Record{Values: map[string]any{
				names.CustomerNr: nr(numbers, i), names.CustomerName: name, names.CustomerStatus: "Active", names.CustomerCategory: pick(s.rnd, seedCategories),
				names.CustomerAddressLine1: fmt.Sprintf("%s %d", pick(s.rnd, seedStreets), 1+s.rnd.IntN(120)),
				names.CustomerPostalCode:   fmt.Sprintf("%03d %02d", 100+s.rnd.IntN(900), s.rnd.IntN(100)),
				names.CustomerCity:         city, names.CustomerCountry: "Sverige",
				names.CustomerPhone: fmt.Sprintf("+46 %d %03d %02d %02d", 8+s.rnd.IntN(90), s.rnd.IntN(1000), s.rnd.IntN(100), s.rnd.IntN(100)),
				names.CustomerEmail: fmt.Sprintf("info@kund%s.se", nr(numbers, i)),
			}})
		}
		return []dataset.Register{{Name: names.Customers, Records: recs}}
	})
}

func (s *seeder) seedObjects(ctx context.Context) error {
	s.objects = make([][]string, len(s.customers))
	return s.inBatches(ctx, names.Objects1, s.plan.objects, func(numbers []int64, from, to int) []dataset.Register {
		recs := make([]dataset.Record, 0, to-from)
		for i := from; i < to; i++ {
			c := i % len(s.customers)
			s.objects[c] = append(s.objects[c], nr(numbers, i))
			recs = append(recs, dataset.Record{Values: map[string]any{
				names.Object1Nr: nr(numbers, i), names.Object1Name: pick(s.rnd, seedSites) + " " + s.customers[c].name, names.Object1Status: "Active",
				names.Object1Category: "Fastighet", names.Object1CustomerNr: s.customers[c].nr, names.Object1Level: 1.0,
			}})
		}
		return []dataset.Register{{Name: names.Objects1, Records: recs}}
	})
}

func (s *seeder) seedTasks(ctx context.Context) error {
	return s.inBatches(ctx, names.Tasks, s.plan.tasks, func(numbers []int64, from, to int) []dataset.Register {
		tasks := make([]dataset.Record, 0, to-from)
		var materials, times []dataset.Record
		for i := from; i < to; i++ {
			taskNr := nr(numbers, i)
			c := s.rnd.IntN(len(s.customers))
			owner := pick(s.rnd, s.users)
			status := pick(s.rnd, seedTaskStatuses)
			start := s.day()
			values := map[string]any{
				names.TaskNr: taskNr, names.TaskCustomerNr: s.customers[c].nr, names.TaskCustomerName: s.customers[c].name,
				names.TaskTaskText: pick(s.rnd, seedTaskTexts), names.TaskStatus: status, names.TaskOwnerSign: owner,
				names.TaskUserSigns: []string{owner}, names.TaskAssigneeStatuses: map[string]string{owner: status},
				names.TaskPlanDateType: "Day", names.TaskPlanStartDate: start, names.TaskPlanStopDate: start,
				names.TaskCreatedBy: owner, names.TaskCreatedDate: start, names.TaskCustomerRef: fmt.Sprintf("PO-%d", 1000+s.rnd.IntN(9000)),
			}
			if objs := s.objects[c]; len(objs) > 0 {
				values[names.TaskObject1Nr] = pick(s.rnd, objs)
			}
			tasks = append(tasks, dataset.Record{Values: values})
			for range 1 + s.rnd.IntN(3) {
				p := pick(s.rnd, s.products)
				materials = append(materials, dataset.Record{Values: map[string]any{
					names.MaterialOwnerNr: taskNr, names.MaterialOwnerType: "task", names.MaterialProductNr: p.nr, names.MaterialProductName: p.name, names.MaterialUnit: p.unit,
					names.MaterialQuantity: float64(1 + s.rnd.IntN(4)), names.MaterialPrice: p.price, names.MaterialInvoice: true,
				}})
			}
			for range 1 + s.rnd.IntN(2) {
				times = append(times, dataset.Record{Values: map[string]any{
					names.TimeOwnerNr: taskNr, names.TimeOwnerType: "task", names.TimeTimeType: pick(s.rnd, s.timeTypes), names.TimeUserSign: owner,
					names.TimeHours: float64(1+s.rnd.IntN(16)) / 2, names.TimeDate: start, names.TimeSpec: "Utfört arbete", names.TimeInvoice: true,
				}})
			}
		}
		return []dataset.Register{{Name: names.Tasks, Records: tasks}, {Name: names.Materials, Records: materials}, {Name: names.Times, Records: times}}
	})
}

func (s *seeder) seedOrders(ctx context.Context) error {
	return s.inBatches(ctx, names.Orders, s.plan.orders, func(numbers []int64, from, to int) []dataset.Register {
		orders := make([]dataset.Record, 0, to-from)
		var lines []dataset.Record
		for i := from; i < to; i++ {
			orderNr := nr(numbers, i)
			c := s.customers[s.rnd.IntN(len(s.customers))]
			date := s.day()
			orders = append(orders, dataset.Record{Values: map[string]any{
				names.OrderNr: orderNr, names.OrderCustomerNr: c.nr, names.OrderCustomerName: c.name, names.OrderStatus: pick(s.rnd, seedOrderStatuses),
				names.OrderUserSign: pick(s.rnd, s.users), names.OrderOrderDate: date, names.OrderDeliveryDate: date, names.OrderCreatedDate: date,
			}})
			for range 1 + s.rnd.IntN(4) {
				p := pick(s.rnd, s.products)
				qty := float64(1 + s.rnd.IntN(5))
				lines = append(lines, dataset.Record{Values: map[string]any{
					names.OrderLineOrderNr: orderNr, names.OrderLineProductNr: p.nr, names.OrderLineProductName: p.name, names.OrderLineUnit: p.unit,
					names.OrderLineQuantity: qty, names.OrderLinePrice: p.price, names.OrderLineTotalPrice: math.Round(qty*p.price*100) / 100, names.OrderLineDeliveryDate: date,
				}})
			}
		}
		return []dataset.Register{{Name: names.Orders, Records: orders}, {Name: names.OrderLines, Records: lines}}
	})
}

// day is a date in the three years around 2026.
func (s *seeder) day() string {
	return time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, s.rnd.IntN(3*365)).Format("2006-01-02")
}

func (s *seeder) companyName() string {
	return pick(s.rnd, seedSurnames) + " " + pick(s.rnd, seedTrades) + " " + pick(s.rnd, []string{"AB", "AB", "HB", "AS", "Oy"})
}

func pick[T any](rnd *rand.Rand, from []T) T { return from[rnd.IntN(len(from))] }

// Word lists the seeded text is drawn from.
var (
	seedSurnames      = []string{"Andersson", "Johansson", "Karlsson", "Nilsson", "Eriksson", "Larsson", "Olsson", "Persson", "Svensson", "Gustafsson", "Pettersson", "Lindberg", "Berg", "Lund", "Holm", "Nordin", "Hansen", "Virtanen", "Jensen", "Dahl"}
	seedTrades        = []string{"Fastigheter", "Bygg", "VVS", "El", "Förvaltning", "Bostäder", "Industri", "Kyl & Värme", "Energi", "Service"}
	seedCategories    = []string{"Fastighetsbolag", "Bostadsrättsförening", "Industri", "Kommun", "Privat"}
	seedCities        = []string{"Stockholm", "Göteborg", "Malmö", "Uppsala", "Västerås", "Örebro", "Linköping", "Umeå", "Oslo", "Bergen", "Helsinki", "Aarhus"}
	seedStreets       = []string{"Storgatan", "Kungsgatan", "Drottninggatan", "Skolgatan", "Järnvägsgatan", "Industrivägen", "Parkvägen", "Strandvägen"}
	seedSites         = []string{"Fastigheten", "Kontorshuset", "Lagret", "Skolan", "Butiken"}
	seedTaskTexts     = []string{"Årsservice värmepump", "Felsökning ventilation", "Byte av filter", "Läckage i undercentral", "Installation laddbox", "Injustering radiatorer", "Service kylaggregat", "Besiktning brandlarm", "Byte av cirkulationspump", "Akut: ingen värme"}
	seedTaskStatuses  = []string{"Planned", "Planned", "Sent", "Received", "InProgress", "Finished", "Finished", "Finished", "Archived", "Archived"}
	seedOrderStatuses = []string{"Planned", "Ordered", "Delivered", "Invoiced", "Invoiced"}
)

// seedProgress shows how far a seed has come: a bar on a terminal, plain
// lines (every 10 %) otherwise.
type seedProgress interface {
	Add(n int)
	Close()
}

func newSeedProgress(w io.Writer, total int) seedProgress {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return barProgress{progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("seeding"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("records"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)}
	}
	return &lineProgress{w: w, total: total, began: time.Now()}
}

type barProgress struct{ bar *progressbar.ProgressBar }

func (b barProgress) Add(n int) { _ = b.bar.Add(n) }
func (b barProgress) Close()    { _ = b.bar.Finish() }

// lineProgress prints "seeded N of M records (P %, R records/s)" each time
// another tenth is done.
type lineProgress struct {
	w           io.Writer
	total, done int
	shown       int // tenths printed
	began       time.Time
}

func (p *lineProgress) Add(n int) {
	p.done += n
	if p.total == 0 {
		return
	}
	for tenth := p.done * 10 / p.total; p.shown < tenth; {
		p.shown = tenth
		rate := float64(p.done) / max(time.Since(p.began).Seconds(), 0.001)
		fmt.Fprintf(p.w, "seeded %d of %d records (%d %%, %.0f records/s)\n", p.done, p.total, p.done*100/p.total, rate)
	}
}

func (p *lineProgress) Close() {}
