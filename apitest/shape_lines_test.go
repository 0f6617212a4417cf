package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/runtime"
)

// lineMembers are the members of each line of the line list name of a
// record, and the lines themselves.
func lineMembers(t testing.TB, record json.RawMessage, name string) (members_ [][]string, lines []json.RawMessage) {
	t.Helper()
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(record, &parts); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(parts[name], &lines); err != nil || lines == nil {
		t.Fatalf("%s is no list: %s (%v)", name, parts[name], err)
	}
	for _, line := range lines {
		members_ = append(members_, members(t, line))
	}
	return members_, lines
}

// TestFieldsNarrowLines: fields= naming a line list's fields after it
// (Materials.ProductNr, as read or camelCase) answers each line of the
// list with its key Id and those fields only, values and order those of
// the whole read, on lists and gets; the list named alone answers whole
// lines; a narrowed line list goes with expand= and its nested fields.
func TestFieldsNarrowLines(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		whole := items(t, env.Get("/v1/tasks?limit=20"))
		resp := env.SkipRequestValidation().Get("/v1/tasks?limit=20&fields=" + url.QueryEscape("Nr,Materials.ProductNr,materials.quantity"))
		Expect(t, resp, http.StatusOK)
		got := items(t, resp)
		is.Equal(len(got), len(whole))
		lines := 0
		for i, raw := range got {
			is.Equal(members(t, raw), []string{"Nr", "Materials"})
			names, narrowed := lineMembers(t, raw, "Materials")
			_, full := lineMembers(t, whole[i], "Materials")
			is.Equal(len(narrowed), len(full)) // every line, in the whole read's order
			for j := range narrowed {
				lines++
				is.Equal(names[j], []string{"Id", "ProductNr", "Quantity"})
				var part, all map[string]any
				is.NoErr(json.Unmarshal(narrowed[j], &part))
				is.NoErr(json.Unmarshal(full[j], &all))
				for name, v := range part {
					is.Equal(v, all[name])
				}
			}
		}
		is.True(lines > 0) // the demo's first tasks carry materials

		// A get narrows two lists at once; the list named alone is whole.
		nr := firstKey(t, env, "tasks")
		wholeOne := env.Get(KeyPath("tasks", nr))
		Expect(t, wholeOne, http.StatusOK)
		one := env.Get(KeyPath("tasks", nr) + "?fields=" + url.QueryEscape("Status,Times.Hours,Materials.ProductNr"))
		Expect(t, one, http.StatusOK)
		is.Equal(members(t, one.Body), []string{"Nr", "Status", "Materials", "Times"})
		for list, want := range map[string][]string{"Materials": {"Id", "ProductNr"}, "Times": {"Id", "Hours"}} {
			names, _ := lineMembers(t, one.Body, list)
			_, full := lineMembers(t, wholeOne.Body, list)
			is.Equal(len(names), len(full))
			for _, n := range names {
				is.Equal(n, want)
			}
		}
		alone := env.Get(KeyPath("tasks", nr) + "?fields=Materials")
		Expect(t, alone, http.StatusOK)
		var a, w map[string]json.RawMessage
		is.NoErr(json.Unmarshal(alone.Body, &a))
		is.NoErr(json.Unmarshal(wholeOne.Body, &w))
		is.Equal(string(a["Materials"]), string(w["Materials"])) // whole lines, byte for byte

		// With expand=: the lines narrowed, the expanded record narrowed.
		mixed := env.Get("/v1/tasks?limit=5&expand=Customer&fields=" + url.QueryEscape("Materials.ProductNr,Customer.Name"))
		Expect(t, mixed, http.StatusOK)
		for _, raw := range items(t, mixed) {
			is.Equal(members(t, raw), []string{"Nr", "Materials", "Customer"})
			names, _ := lineMembers(t, raw, "Materials")
			for _, n := range names {
				is.Equal(n, []string{"Id", "ProductNr"})
			}
			var parts map[string]json.RawMessage
			is.NoErr(json.Unmarshal(raw, &parts))
			is.Equal(members(t, parts["Customer"]), []string{"Nr", "Name"})
		}
		// An order's Lines, by camelCase names.
		order := env.Get("/v1/orders?limit=5&fields=" + url.QueryEscape("lines.productNr"))
		Expect(t, order, http.StatusOK)
		orderLines := 0
		for _, raw := range items(t, order) {
			is.Equal(members(t, raw), []string{"Nr", "Lines"})
			names, _ := lineMembers(t, raw, "Lines")
			for _, n := range names {
				orderLines++
				is.Equal(n, []string{"Id", "ProductNr"})
			}
		}
		is.True(orderLines > 0)
	})
}

// TestEveryLineFieldNamedIsTheWholeRecord: for every register with line
// lists in its read shape, fields= naming every field and every field of
// each list's lines (Materials.Id, Materials.OwnerNr, …) answers byte for
// byte as the list without fields= does, and so does the get.
func TestEveryLineFieldNamedIsTheWholeRecord(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		checked := 0
		for _, reg := range env.Catalog.Registers {
			var names []string
			for _, f := range reg.Fields {
				names = append(names, f.Name)
			}
			for _, l := range reg.Lines {
				if !l.Read {
					continue
				}
				lr := env.Catalog.Register(l.Register)
				for _, f := range lr.Fields {
					names = append(names, l.ReadName+"."+f.Name)
				}
				names = append(names, l.ReadName+".Modified")
				if lr.ExtraFields {
					names = append(names, l.ReadName+".ExtraFields")
				}
			}
			if !slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, ".") }) {
				continue
			}
			checked++
			names = append(names, "Modified")
			if reg.ExtraFields {
				names = append(names, "ExtraFields")
			}
			fields := "fields=" + url.QueryEscape(strings.Join(names, ","))
			whole := env.Get("/v1/" + reg.Name + "?limit=20")
			Expect(t, whole, http.StatusOK)
			named := env.Get("/v1/" + reg.Name + "?limit=20&" + fields)
			Expect(t, named, http.StatusOK)
			if !bytes.Equal(whole.Body, named.Body) {
				t.Errorf("%s: every field of every line named answers\n%s\nwant\n%s", reg.Name, named.Body, whole.Body)
			}
			key := firstKey(t, env, reg.Name)
			wholeOne, namedOne := env.Get(KeyPath(reg.Name, key)), env.Get(KeyPath(reg.Name, key)+"?"+fields)
			if !bytes.Equal(wholeOne.Body, namedOne.Body) {
				t.Errorf("%s/%s: every field of every line named answers\n%s\nwant\n%s", reg.Name, key, namedOne.Body, wholeOne.Body)
			}
		}
		if checked == 0 {
			t.Fatal("no register with line lists in its read shape")
		}
	})
}

// TestExpandedLinesOverTheCap: a record with more lines than an expanded
// line list carries (runtime.MaxExpandedLines) is 400 naming expand, on
// its get and on a list it is on; its lines stay readable whole.
func TestExpandedLinesOverTheCap(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		is := is.New(t)
		env := Start(t, b, runtime.Config{})
		contacts := make([]map[string]any, runtime.MaxExpandedLines+1)
		for i := range contacts {
			contacts[i] = map[string]any{"name": fmt.Sprintf("Kontakt %d", i)}
		}
		created := env.Post("/v1/customers", map[string]any{"name": "Många kontakter AB", "contacts": contacts})
		Expect(t, created, http.StatusCreated)
		nr := created.Object(t)["Nr"].(string)
		for _, path := range []string{KeyPath("customers", nr) + "?expand=Contacts", "/v1/customers?limit=5&expand=Contacts&fields=Contacts.Name"} {
			resp := env.Get(path)
			Expect(t, resp, http.StatusBadRequest)
			p := resp.Problem(t)
			is.True(strings.Contains(p.Detail, `parameter "expand"`))
			is.True(strings.Contains(p.Detail, fmt.Sprintf("more than %d Contacts", runtime.MaxExpandedLines)))
		}
		page := env.page(t, "/v1/contacts?limit=500&customerNr="+url.QueryEscape(nr))
		is.Equal(len(page.Items), runtime.MaxExpandedLines+1)
	})
}
