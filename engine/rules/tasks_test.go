package rules

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/engine"
	"fieldapi/engine/names"
)

var ctx = context.Background()

func TestPlanDates(t *testing.T) {
	cases := []struct {
		name    string
		current engine.Record // nil: a create
		sent    Values
		want    Values // plan fields after; nil with refused
		refused string // part of the refusal
		valid   []string
	}{
		{name: "nothing sent", sent: Values{"TaskText": "x"}, want: Values{}},
		{name: "date gives Day through that day", sent: Values{"PlanStartDate": "2025-09-01"},
			want: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-01", "PlanDateType": "Day"}},
		{name: "date-time gives FromTo to the end of its day", sent: Values{"PlanStartDate": "2025-09-01T08:00:00+02:00"},
			want: Values{"PlanStartDate": "2025-09-01T08:00:00+02:00", "PlanStopDate": "2025-09-01T23:59:59+02:00", "PlanDateType": "FromTo"}},
		{name: "stop kept", sent: Values{"PlanStartDate": "2025-09-01T08:00", "PlanStopDate": "2025-09-02T12:00"},
			want: Values{"PlanStartDate": "2025-09-01T08:00", "PlanStopDate": "2025-09-02T12:00", "PlanDateType": "FromTo"}},
		{name: "Day ignores a stop", sent: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-05", "PlanDateType": "Day"},
			want: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-01", "PlanDateType": "Day"}},
		{name: "Week keeps its stop", sent: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-05", "PlanDateType": "Week"},
			want: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-05", "PlanDateType": "Week"}},
		{name: "Day with a clock time", sent: Values{"PlanStartDate": "2025-09-01T08:00", "PlanDateType": "Day"},
			refused: "PlanDateType Day is dates only", valid: []string{"FromTo", "Fixed"}},
		{name: "unknown type", sent: Values{"PlanStartDate": "2025-09-01", "PlanDateType": "Sometime"},
			refused: `"Sometime" is not a plan date type`, valid: planDateTypes},
		{name: "stop before start", sent: Values{"PlanStartDate": "2025-09-02T08:00", "PlanStopDate": "2025-09-01T08:00"},
			refused: "PlanStopDate 2025-09-01T08:00 is before PlanStartDate 2025-09-02T08:00"},
		{name: "stop without start", sent: Values{"PlanStopDate": "2025-09-01"}, refused: "PlanStopDate needs a PlanStartDate"},
		{name: "update keeps a type that fits", current: engine.Record{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-07", "PlanDateType": "Week"},
			sent: Values{"PlanStopDate": "2025-09-08"},
			want: Values{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-08", "PlanDateType": "Week"}},
		{name: "update replaces a type that no longer fits", current: engine.Record{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-01", "PlanDateType": "Day"},
			sent: Values{"PlanStartDate": "2025-09-03T07:00Z"},
			want: Values{"PlanStartDate": "2025-09-03T07:00Z", "PlanStopDate": "2025-09-03T23:59:59Z", "PlanDateType": "FromTo"}},
		{name: "update: a new start begins a new period", current: engine.Record{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-07", "PlanDateType": "Week"},
			sent: Values{"PlanStartDate": "2025-10-01"},
			want: Values{"PlanStartDate": "2025-10-01", "PlanStopDate": "2025-10-01", "PlanDateType": "Week"}},
		{name: "cleared start clears the stop", current: engine.Record{"PlanStartDate": "2025-09-01", "PlanStopDate": "2025-09-01", "PlanDateType": "Day"},
			sent: Values{"PlanStartDate": ""}, want: Values{"PlanStartDate": nil, "PlanStopDate": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			values := Values{}
			for k, v := range tc.sent {
				values[k] = v
			}
			err := prepare(taskPlan{}, newFakeTx(), tc.current, values)
			if tc.refused != "" {
				refusedWith(t, err, tc.refused, tc.valid)
				return
			}
			is.NoErr(err)
			for name, want := range tc.want {
				is.Equal(values[name], want) // plan field
			}
		})
	}
}

func TestTaskAssignees(t *testing.T) {
	cases := []struct {
		name     string
		setting  string // the company's status rules; "" for the reference rules
		current  engine.Record
		sent     Values
		statuses map[string]string
		signs    []string
		action   any // ActionText after; nil: not set by the write
	}{
		{name: "create: new assignees start at the default status", sent: Values{"UserSigns": []string{"ANLI", "MASV", "ANLI"}},
			signs: []string{"ANLI", "MASV"}, statuses: map[string]string{"ANLI": "Planned", "MASV": "Planned"}},
		{name: "the company's default status", setting: `{"default": "Sent", "transitions": {}}`, sent: Values{"UserSigns": []string{"ANLI"}},
			signs: []string{"ANLI"}, statuses: map[string]string{"ANLI": "Sent"}},
		{name: "one becomes several: the bracket mark",
			current: engine.Record{"UserSigns": []string{"ANLI"}, "AssigneeStatuses": map[string]string{"ANLI": "Received"}, "ActionText": "Byt filter"},
			sent:    Values{"UserSigns": []string{"ANLI", "MASV"}},
			signs:   []string{"ANLI", "MASV"}, statuses: map[string]string{"ANLI": "Received", "MASV": "Planned"}, action: "[ANLI] Byt filter"},
		{name: "the mark on an empty text",
			current: engine.Record{"UserSigns": []string{"ANLI"}, "AssigneeStatuses": map[string]string{"ANLI": "Sent"}},
			sent:    Values{"UserSigns": []string{"ANLI", "MASV"}},
			signs:   []string{"ANLI", "MASV"}, statuses: map[string]string{"ANLI": "Sent", "MASV": "Planned"}, action: "[ANLI]"},
		{name: "marked once",
			current: engine.Record{"UserSigns": []string{"ANLI"}, "ActionText": "[ANLI] Byt filter"},
			sent:    Values{"UserSigns": []string{"ANLI", "MASV"}},
			signs:   []string{"ANLI", "MASV"}, statuses: map[string]string{"ANLI": "Planned", "MASV": "Planned"}},
		{name: "the mark goes on the text the write sends",
			current: engine.Record{"UserSigns": []string{"ANLI"}, "ActionText": "old"},
			sent:    Values{"UserSigns": []string{"MASV", "PEHA"}, "ActionText": "new"},
			signs:   []string{"MASV", "PEHA"}, statuses: map[string]string{"MASV": "Planned", "PEHA": "Planned"}, action: "[ANLI] new"},
		{name: "several to several: no mark",
			current: engine.Record{"UserSigns": []string{"ANLI", "MASV"}, "AssigneeStatuses": map[string]string{"ANLI": "Sent", "MASV": "Sent"}},
			sent:    Values{"UserSigns": []string{"MASV", "PEHA"}},
			signs:   []string{"MASV", "PEHA"}, statuses: map[string]string{"MASV": "Sent", "PEHA": "Planned"}},
		{name: "cleared", current: engine.Record{"UserSigns": []string{"ANLI"}}, sent: Values{"UserSigns": []string{}},
			signs: []string{}, statuses: map[string]string{}},
		{name: "omitted: untouched", current: engine.Record{"UserSigns": []string{"ANLI"}}, sent: Values{"TaskText": "x"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			tx := newFakeTx()
			if tc.setting != "" {
				tx.settings[TaskStatusSetting] = tc.setting
			}
			err := prepare(taskAssignees{}, tx, tc.current, tc.sent)
			is.NoErr(err)
			if tc.signs == nil {
				_, set := tc.sent["AssigneeStatuses"]
				is.True(!set) // nothing assigned
				return
			}
			is.Equal(tc.sent["UserSigns"], tc.signs)
			is.Equal(tc.sent["AssigneeStatuses"], tc.statuses)
			if tc.action != nil {
				is.Equal(tc.sent["ActionText"], tc.action)
			} else if _, sent := tc.sent["ActionText"]; sent {
				is.Equal(tc.sent["ActionText"], "new") // only what the write sent
			}
		})
	}
}

// task is a stored task for the status tests.
func task(status, owner string, assignees map[string]string) engine.Record {
	return engine.Record{"Nr": "10001", "Status": status, "OwnerSign": owner, "AssigneeStatuses": assignees}
}

func TestTaskStatusMoves(t *testing.T) {
	cases := []struct {
		name    string
		stored  engine.Record
		to      string
		stale   bool
		setting string
		refused string
		valid   []string
		busy    bool
	}{
		{name: "allowed move, assignees with it", stored: task("Planned", "ANLI", map[string]string{"ANLI": "Planned", "MASV": "Planned"}), to: "Sent"},
		{name: "same status: nothing", stored: task("Sent", "ANLI", nil), to: "Sent"},
		{name: "not allowed", stored: task("Planned", "ANLI", nil), to: "Finished",
			refused: "Task 10001 cannot move from Planned to Finished; from Planned it can move to: Sent, Archived", valid: []string{"Sent", "Archived"}},
		{name: "the company's table", stored: task("Planned", "ANLI", nil), to: "Finished", setting: `{"default": "Planned", "transitions": {"Planned": ["Finished"]}}`},
		{name: "no owner", stored: task("Planned", "", nil), to: "Sent", refused: "Task 10001 has no owner"},
		{name: "not a status", stored: task("Planned", "ANLI", nil), to: "Done", refused: `"Done" is not a task status`, valid: taskStatuses},
		{name: "moved meanwhile by a parallel call", stored: task("Planned", "ANLI", nil), to: "Sent", stale: true, busy: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			tx := newFakeTx().with(names.Tasks, tc.stored)
			tx.stale = tc.stale
			if tc.setting != "" {
				tx.settings[TaskStatusSetting] = tc.setting
			}
			from := tc.stored["Status"]
			err := taskStatus{}.Actions()[names.TaskStatusAction](ctx, tx, "10001", engine.Input{Values: map[string]any{"Status": tc.to}})
			switch {
			case tc.refused != "":
				refusedWith(t, err, tc.refused, tc.valid)
				is.Equal(len(tx.updates), 0) // nothing written
				return
			case tc.busy:
				is.True(errors.Is(err, engine.ErrBusy)) // retried against the new status
				return
			}
			is.NoErr(err)
			if from == tc.to {
				is.Equal(len(tx.updates), 0)
				is.Equal(len(tx.logs), 0)
				return
			}
			is.Equal(tc.stored["Status"], tc.to)
			for sign, status := range tc.stored["AssigneeStatuses"].(map[string]string) {
				is.Equal(status, tc.to) // assignee moved with the task: sign
				_ = sign
			}
			is.Equal(tx.logs, []logEntry{{names.Tasks, "10001", "status", from.(string) + " → " + tc.to}})
		})
	}
}

// TestTaskCreateStatus: a create's status is held back, the task stored in
// the default status, then moved through the rules once stored.
func TestTaskCreateStatus(t *testing.T) {
	is := is.New(t)
	values := Values{"Nr": "10002", "Status": "Sent", "OwnerSign": "ANLI", "UserSigns": []string{"ANLI"}}
	tx := newFakeTx()
	for _, m := range []Module{taskStatus{}, taskAssignees{}} {
		is.NoErr(m.(CreatePreparer).PrepareCreate(ctx, tx, values))
	}
	is.Equal(values["Status"], "Planned") // stored in the default status first
	tx.with(names.Tasks, engine.Record{"Nr": "10002", "Status": "Planned", "OwnerSign": "ANLI", "AssigneeStatuses": values["AssigneeStatuses"]})
	is.NoErr(taskStatus{}.AfterCreate(ctx, tx, Created{Key: "10002", Row: 42}, values))
	is.Equal(values["Status"], "Sent")
	is.Equal(values["AssigneeStatuses"], map[string]string{"ANLI": "Sent"})
	_, held := values[requestedStatus]
	is.True(!held) // never stored
	is.Equal(tx.find(names.Tasks, "10002")["Status"], "Sent")

	bad := Values{"Status": "Done"}
	is.Equal(refusal(t, taskStatus{}.PrepareCreate(ctx, tx, bad)).ValidValues, taskStatuses)
	tx.settings[TaskStatusSetting] = `{"default": "Nope"}`
	is.True(taskStatus{}.PrepareCreate(ctx, tx, Values{}) != nil) // a broken setting is an error
}

func TestTaskNotes(t *testing.T) {
	is := is.New(t)
	tx := newFakeTx()
	notes := taskRecord{}.Actions()[names.TaskNotesAction]
	is.NoErr(notes(ctx, tx, "10001", engine.Input{Values: map[string]any{"Text": "Porten är låst"}}))
	is.Equal(tx.logs, []logEntry{{names.Tasks, "10001", "note", "Porten är låst"}})
	for _, bad := range []string{"", "  ", "a\x00b"} {
		refusal(t, notes(ctx, tx, "10001", engine.Input{Values: map[string]any{"Text": bad}}))
	}
	is.Equal(len(tx.logs), 1)
}

func TestMaterialPricing(t *testing.T) {
	products := []engine.Record{{"Nr": "4001", "BasePrice": 1000.0}, {"Nr": "4002", "BasePrice": 19.99}}
	lists := []engine.Record{{"Nr": "1", "HasMarkupPct": true, "MarkupPct": 10.0}, {"Nr": "2", "HasMarkupPct": false, "MarkupPct": 50.0}}
	cases := []struct {
		name      string
		line      string
		priceList string
		sent      Values
		price     any
		refused   string
	}{
		{name: "base price", sent: Values{"ProductNr": "4002"}, price: 19.99},
		{name: "with the list's markup", priceList: "1", sent: Values{"ProductNr": "4001"}, price: 1100.0},
		{name: "a list without markup", priceList: "2", sent: Values{"ProductNr": "4001"}, price: 1000.0},
		{name: "less the discount", priceList: "1", sent: Values{"ProductNr": "4001", "DiscountPct": 25.0}, price: 825.0},
		{name: "a price sent is kept", priceList: "1", sent: Values{"ProductNr": "4001", "Price": 5.0}, price: 5.0},
		{name: "other line lists are not priced", line: names.TaskTimesLine, sent: Values{"ProductNr": "4001"}, price: nil},
		{name: "discount over 100", sent: Values{"ProductNr": "4001", "DiscountPct": 101.0}, refused: "DiscountPct must be from 0 to 100"},
		{name: "unknown product", sent: Values{"ProductNr": "9"}, refused: `products "9" does not exist`},
		{name: "unknown price list", priceList: "7", sent: Values{"ProductNr": "4001"}, refused: `pricelists "7" does not exist`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			tx := newFakeTx().with(names.Products, products...).with(names.PriceLists, lists...)
			line := tc.line
			if line == "" {
				line = names.TaskMaterialsLine
			}
			err := materialPricing{}.PrepareLine(ctx, tx, Values{"PriceListNr": tc.priceList}, line, tc.sent)
			if tc.refused != "" {
				is.True(strings.Contains(refusal(t, err).Detail, tc.refused))
				return
			}
			is.NoErr(err)
			is.Equal(tc.sent["Price"], tc.price)
		})
	}
}
