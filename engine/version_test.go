package engine

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestVersionChangesWithAnyValueAndOnlyThen(t *testing.T) {
	is := is.New(t)
	rec := func() Record {
		return Record{"Nr": "1001", "Name": "Ola AS", "Price": 12.5, "Active": true, "Tags": []string{"a", "b"},
			"ExtraFields": map[string]string{"Visit.Type": "Service", "Colour": ""}, "Note": nil,
			"Lines": []Record{{"Id": "1", "Qty": 2.0}}}
	}
	base := rec().Version()
	is.Equal(len(base), 32)
	is.Equal(rec().Version(), base) // the same record, the same version (map order does not matter)
	for name, change := range map[string]func(Record){
		"text":          func(r Record) { r["Name"] = "Ola A/S" },
		"number":        func(r Record) { r["Price"] = 12.25 },
		"bool":          func(r Record) { r["Active"] = false },
		"null to empty": func(r Record) { r["Note"] = "" },
		"list order":    func(r Record) { r["Tags"] = []string{"b", "a"} },
		"extra field":   func(r Record) { r["ExtraFields"] = map[string]string{"Visit.Type": "Service", "Colour": "Red"} },
		"line":          func(r Record) { r["Lines"] = []Record{{"Id": "1", "Qty": 3.0}} },
		"field added":   func(r Record) { r["City"] = "Bergen" },
		"text boundary": func(r Record) { r["Nr"], r["Name"] = "1001Ola", " AS" },
	} {
		r := rec()
		change(r)
		if r.Version() == base {
			t.Errorf("%s: the version did not change", name)
		}
	}
	r := rec()
	r[VersionField] = "rowversion-7"
	is.Equal(r.Version(), "rowversion-7") // an engine's own version wins
}

func TestCheckVersion(t *testing.T) {
	is := is.New(t)
	rec := Record{"Nr": "1"}
	is.NoErr(Input{}.CheckVersion(rec))
	is.NoErr(Input{IfMatch: []string{"other", rec.Version()}}.CheckVersion(rec))
	is.Equal(Input{IfMatch: []string{"other"}}.CheckVersion(rec), ErrPreconditionFailed)
}

// BenchmarkVersion: the ETag of a customer-sized record, computed on
// every read of one record.
func BenchmarkVersion(b *testing.B) {
	rec := Record{"ExtraFields": map[string]string{"City.Upper": "STOCKHOLM", "Credit.Rating": "AAA", "Service.Level": "Bronze"}}
	for i := range 20 {
		rec[fmt.Sprintf("Field%02d", i)] = fmt.Sprintf("value number %d", i)
	}
	for b.Loop() {
		rec.Version()
	}
}

// TestSortedKeysAsSlicesSort: sortedKeys orders names as slices.Sort does,
// whatever they share and however long they are.
func TestSortedKeysAsSlicesSort(t *testing.T) {
	check := func(t *testing.T, m map[string]int) {
		t.Helper()
		if got, want := sortedKeys(m, nil), slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) {
			t.Errorf("sortedKeys:\n got %q\nwant %q", got, want)
		}
	}
	for name, keys := range map[string][]string{
		"none":              {},
		"one":               {"Nr"},
		"empty key":         {"", "a", "\x00", "A"},
		"shorter than 8":    {"a", "ab", "abc", "b", "a\x00", "a\x00\x00", "ab\x00", "\x00\x00\x00\x00\x00\x00\x00"},
		"exactly 8":         {"CustomT1", "CustomT2", "CustomA1", "Customer", "Custome", "Customer\x00"},
		"long prefix":       {"CustomerNr", "CustomerName", "CustomerOrderer", "CustomerRef", "Customer", "CustomerN"},
		"differ after 8":    {"abcdefgh1", "abcdefgh0", "abcdefgh", "abcdefgh\x00", "abcdefgh\xff", "abcdefghi", "abcdefgg\xff"},
		"differ far after":  {"Visit.Type.Something.A", "Visit.Type.Something.B", "Visit.Type.Something", "Visit.Type"},
		"high bytes":        {"\xff", "\xff\xff", "\x7f", "\x80", "\xfe\xff\xff\xff\xff\xff\xff\xff\xff"},
		"non-ASCII":         {"Ä", "Å", "Ö", "a", "z", "Zürich", "Zurich", "日本", "Käll", "Kall", "Kälb"},
		"task fields":       {"Object1Nr", "Object1Name", "Object2Nr", "PlanStartDate", "PlanStopDate", "PlanDateType", "Id", "Nr"},
		"prefix of another": {"Plan", "PlanS", "PlanStart", "PlanStartDate", "PlanStartDat", "PlanStart\x00"},
	} {
		m := map[string]int{}
		for i, k := range keys {
			m[k] = i
		}
		t.Run(name, func(t *testing.T) { check(t, m) })
	}
	// Random sets, of fewer keys than fewKeys and of more, of names drawn
	// from few bytes so that they share prefixes and tie in their first 8.
	rnd := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"\x00", "\x01", "a", "b", "Z", "\x7f", "\x80", "\xff", "ä", "Customer"}
	for range 2000 {
		m := map[string]int{}
		for n := rnd.IntN(2 * fewKeys); len(m) < n; {
			var k strings.Builder
			for range rnd.IntN(12) {
				k.WriteString(alphabet[rnd.IntN(len(alphabet))])
			}
			m[k.String()] = n
		}
		check(t, m)
	}
}

// benchTask is a task as read, with its lines: a GET of one task
// computes its version and writes its JSON.
func benchTask() Record {
	task := Record{"Nr": "10053", "Id": "53", "Status": "Finished", "CustomerNr": "1005", "CustomerName": "Norrsken Fastigheter AB",
		"TaskText": "Byte av cirkulationspump", "TaskNote": "", "ActionText": "Pump bytt, systemet avluftat", "ActionNote": nil,
		"CustomerOrderer": "Karin Lindström", "CustomerRef": "PO-4656", "OwnerSign": "ANLI", "UserSigns": []string{"ERJO"},
		"AssigneeStatuses": map[string]string{"ERJO": "Finished"}, "PlanStartDate": "2025-07-16", "PlanStopDate": "2025-07-18",
		"PlanDateType": "FromTo", "EstimatedTime": 5.0, "ProjectNr": "101", "PriorityName": nil, "PriceListNr": "2",
		"Object1Nr": "105", "Object1Name": "Fastigheten Norrsken", "Object2Nr": "205", "Object2Name": "Hus B",
		"Object3Nr": "305", "Object3Name": "Källarplan", "Object4Nr": "405", "Object4Name": "Värmepump NIBE F1255",
		"CustomT1": "AO-10053", "CustomT2": "", "CustomT3": "", "CustomA1": "", "CustomA2": "", "CustomA3": "",
		"CreatedBy": "API", "CreatedDate": "2026-11-22", "Modified": "2026-11-22T20:24:16.498310Z",
		"ExtraFields": map[string]string{"Internal.Ref": "", "Task_Label": "Task 10053", "Visit.Type": "Repair", "follow_up_date": "2025-08-16"}}
	var materials, times []Record
	for i := range 3 {
		materials = append(materials, Record{"Id": fmt.Sprint(94 + i), "OwnerNr": "10053", "OwnerType": "task", "ProductNr": "4011",
			"ProductName": "Pressmuff 15 mm", "Unit": "st", "Quantity": 3.0, "Price": 48.0, "Modified": "2026-11-22T20:24:16.498310Z"})
		times = append(times, Record{"Id": fmt.Sprint(38 + i), "OwnerNr": "10053", "OwnerType": "task", "TimeType": "Normaltid",
			"UserSign": "ANLI", "Spec": "Installation", "Hours": 4.5, "Date": "2025-07-31", "Modified": "2026-11-22T20:24:16.498310Z"})
	}
	task["materials"], task["times"] = materials, times
	return task
}

// BenchmarkVersionTask: the ETag of a task with its lines.
func BenchmarkVersionTask(b *testing.B) {
	task := benchTask()
	for b.Loop() {
		task.Version()
	}
}
