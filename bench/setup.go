package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"

	"fieldapi/catalog"
	importdata "fieldapi/engine/dataset"
	"fieldapi/engine/reference"
)

// lineCounts are the sizes of the task writes measured: post-task-N and
// patch-task-N for each N.
var lineCounts = []int{1, 3, 20}

// taskWithLines is a task create with n lines: two thirds materials (the
// products in turn), a third times, so 1 line is one material, 3 are two
// materials and a time (the earlier post-task), 20 are 14 and 6.
func taskWithLines(customer, text string, products []string, timeType string, n int) map[string]any {
	times := n / 3
	materials := make([]map[string]any, n-times)
	for i := range materials {
		materials[i] = map[string]any{"productNr": products[i%len(products)], "quantity": i + 1}
	}
	hours := make([]map[string]any, times)
	for i := range hours {
		hours[i] = map[string]any{"timeType": timeType, "hours": 1.5}
	}
	return map[string]any{"customerNr": customer, "taskText": text, "materials": materials, "times": hours}
}

// createLinedTasks creates, through fieldapi, per line count, one task
// per client with that many lines: patch-task-N changes the note of a
// task with N lines (a PATCH of a task carries no lines, but its answer
// is the task with them). One task per client keeps concurrent PATCHes
// off each other's rows, as the random picks of a large company do.
// It fills d.lined, the map the PATCH scenarios already hold.
func createLinedTasks(t *target, d *dataset, clients int, runID string) error {
	for _, n := range lineCounts {
		for w := range clients {
			body, _ := json.Marshal(taskWithLines(d.customers[w%len(d.customers)], fmt.Sprintf("Bench %d lines", n), d.products, d.timeType, n))
			req, _ := http.NewRequest(http.MethodPost, t.url+"/v1/tasks", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+t.bearer)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%s-setup-%d-%d", runID, n, w))
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			answer, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var created struct{ Nr string }
			if err := json.Unmarshal(answer, &created); err != nil || resp.StatusCode != http.StatusCreated || created.Nr == "" {
				return fmt.Errorf("create a task with %d lines: %d %s", n, resp.StatusCode, answer)
			}
			d.lined[n] = append(d.lined[n], created.Nr)
		}
	}
	return nil
}

// companyCount is how many companies the spread create run uses.
const companyCount = 8

// company is one of the benchmark's own companies, with a key.
type company struct {
	id, bearer string
	customers  []string
	products   []string
}

// benchCompanies are the companies of the one-company and eight-companies
// runs: bench-c1 … bench-c8, alike, each with the users, products, time
// type and customers a task create needs (created once, by an import
// through the engine, as init --demo loads the demo companies), and a new
// key each. The one-company run uses bench-c1, so both runs create tasks
// in companies of the same size.
func benchCompanies(cfg config) ([]company, error) {
	cat, err := catalog.Builtin()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	eng, err := reference.Open(ctx, cfg.db, cat, reference.Options{})
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	var out []company
	for i := 1; i <= companyCount; i++ {
		c := company{id: fmt.Sprintf("bench-c%d", i)}
		var customers, products []importdata.Record
		for j := range 20 {
			nr := strconv.Itoa(1001 + j)
			c.customers = append(c.customers, nr)
			customers = append(customers, importdata.Record{Values: map[string]any{"Nr": nr, "Name": "Customer " + nr, "City": "Umeå", "Status": "Active"}})
			pnr := strconv.Itoa(4001 + j)
			c.products = append(c.products, pnr)
			products = append(products, importdata.Record{Values: map[string]any{"Nr": pnr, "Name": "Product " + pnr, "Unit": "st", "BasePrice": 100 + j, "Status": "Active"}})
		}
		// Import skips a batch a company has imported: a second run adds nothing.
		err := eng.Import(ctx, importdata.Company{ID: c.id, Name: "Bench company " + strconv.Itoa(i), Batches: []importdata.Batch{{
			Name: "bench.company",
			Registers: []importdata.Register{
				{Name: "users", Records: []importdata.Record{{Values: map[string]any{"Sign": "API", "Name": "API", "Status": "Active"}, Permissions: "*"}}},
				{Name: "timetypes", Records: []importdata.Record{{Values: map[string]any{"Name": "Normaltid", "Unit": "tim", "BasePrice": 695, "Status": "Active"}}}},
				{Name: "products", Records: products},
				{Name: "customers", Records: customers},
			},
		}}})
		if err != nil {
			return nil, fmt.Errorf("company %s: %w", c.id, err)
		}
		out = append(out, c)
	}
	for i := range out {
		if out[i].bearer, err = createKey(cfg, out[i].id, "bench-"+randomHex(4)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// createKey makes a key of the company with every scope, as sign API.
func createKey(cfg config, company, clientID string) (string, error) {
	out, err := exec.Command(cfg.fieldapi, "keys", "create", "--db", cfg.db, "--company", company, "--sign", "API",
		"--scopes", "*", "--client-id", clientID, "--json").Output()
	if err != nil {
		return "", fmt.Errorf("keys create --company %s: %w", company, err)
	}
	var key struct{ Key string }
	if err := json.Unmarshal(out, &key); err != nil || key.Key == "" {
		return "", fmt.Errorf("keys create --company %s printed %q: %v", company, out, err)
	}
	return key.Key, nil
}

// companyScenarios are the create runs of one company against eight: POST
// a task with 3 lines, every client in bench-c1, then client w in company
// w mod 8. Where creates of one company serialize on a row of the
// company, the first is slower.
func companyScenarios(companies []company, runID string) []scenario {
	post := func(name string, companyOf func(w int) company) scenario {
		return scenario{name: name, write: true, fieldapiOnly: true, request: func(t *target, w, i int) *http.Request {
			c := companyOf(w)
			body, _ := json.Marshal(taskWithLines(c.customers[(w*7+i)%len(c.customers)], "Company run", c.products, "Normaltid", 3))
			req, _ := http.NewRequest(http.MethodPost, t.url+"/v1/tasks", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+c.bearer)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", fmt.Sprintf("bench-%s-%s-%d-%d", runID, name, w, i))
			return req
		}}
	}
	return []scenario{
		post("one-company", func(int) company { return companies[0] }),
		post("eight-companies", func(w int) company { return companies[w%len(companies)] }),
	}
}
