package apitest

import (
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/matryer/is"

	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// Tasks (spec 2.2, 3, 4.3) over HTTP: the create reply, all-or-nothing
// creates, the status rules, owner, assignees, plan dates, pricing, notes,
// the change log, PATCH and lists. The change log is read through the API
// (GET …/changes, …/notes; changes_test.go), on every backend.

// taskStatuses are the six statuses of spec 3.1.
var taskStatuses = []string{"Planned", "Sent", "Received", "InProgress", "Finished", "Archived"}

// engineRows counts rows in the engine's SQL database with a query of one
// COUNT(*) and ? placeholders, for what the API does not show: the rows of
// a whole table. ok is false on the memory store, which SQL cannot read.
func engineRows(t testing.TB, env *Env, query string, args ...any) (n int, ok bool) {
	t.Helper()
	if env.DSN == reference.MemoryDSN {
		return 0, false
	}
	driver, dsn := "pgx", env.DSN
	if path, ok := strings.CutPrefix(env.DSN, "sqlite:"); ok {
		driver, dsn = "sqlite", path
	} else {
		query = sqlx.Rebind(sqlx.DOLLAR, query)
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n, true
}

// taskTrace is what a task create leaves in company demo: its tasks and
// task lines, as the lists count them, and the rows of the whole change
// log, which no call lists (-1 on the memory store).
type taskTrace struct{ tasks, materials, times, logRows int }

func traceTasks(t testing.TB, env *Env) taskTrace {
	t.Helper()
	total := func(register string) int {
		p := env.page(t, "/v1/"+register+"?limit=1")
		if p.Total == nil {
			t.Fatalf("%s is not counted", register)
		}
		return *p.Total
	}
	logRows, ok := engineRows(t, env, `SELECT COUNT(*) FROM "change_log" WHERE "company" = ?`, "demo")
	if !ok {
		logRows = -1
	}
	return taskTrace{total("tasks"), total("materials"), total("times"), logRows}
}

// taskLog counts the change-log entries of a task, of one action or all ("").
func taskLog(t testing.TB, env *Env, nr, action string) int {
	t.Helper()
	return len(changesOf(t, env, "tasks", nr, action))
}

// newTask creates a task from the body, fails unless it is created, and
// returns its number.
func newTask(t testing.TB, env *Env, body map[string]any) string {
	t.Helper()
	resp := env.Post("/v1/tasks", body)
	Expect(t, resp, http.StatusCreated)
	return resp.Object(t)["nr"].(string)
}

// getTask reads a task.
func getTask(t testing.TB, env *Env, nr string) map[string]any {
	t.Helper()
	resp := env.Get(KeyPath("tasks", nr))
	Expect(t, resp, http.StatusOK)
	return resp.Object(t)
}

// refusal expects a 422 command_failed problem and returns it.
func refusal(t testing.TB, resp Response) runtime.Problem {
	t.Helper()
	Expect(t, resp, http.StatusUnprocessableEntity)
	p := resp.Problem(t)
	if p.Title != "command_failed" {
		t.Fatalf("problem %q, want command_failed: %s", p.Title, p.Detail)
	}
	return p
}

// TestTasks runs every part on one service per backend (starting one
// costs most of a test's time); each part creates the tasks it needs, and
// the lists run first, on the demo data alone.
func TestTasks(t *testing.T) {
	Each(t, func(t *testing.T, b Backend) {
		env := Start(t, b, runtime.Config{})
		for _, part := range []struct {
			name string
			test func(t *testing.T, env *Env)
		}{
			{"lists", testTaskLists},
			{"create reply", testTaskCreateReply},
			{"all or nothing", testTaskCreateIsAllOrNothing},
			{"status", testTaskStatus},
			{"assignees", testTaskAssignees},
			{"plan dates", testTaskPlanDates},
			{"material pricing", testTaskMaterialPricing},
			{"notes and change log", testTaskNotesAndChangeLog},
		} {
			t.Run(part.name, func(t *testing.T) { part.test(t, env) })
		}
	})
}

func testTaskCreateReply(t *testing.T, env *Env) {
	is := is.New(t)
	resp := env.Post("/v1/tasks", map[string]any{
		"customerNr": "1002", "taskText": "Byte av expansionskärl",
		"materials": []any{map[string]any{"productNr": "4015", "quantity": 1}, map[string]any{"productNr": "4011", "quantity": 4}},
		"times":     []any{map[string]any{"timeType": "Resa, km/dag", "hours": 34}},
	})
	Expect(t, resp, http.StatusCreated)
	var reply map[string]any
	resp.JSON(t, &reply)
	keys := []string{}
	for k := range reply {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	is.Equal(keys, []string{"id", "materials", "nr", "status", "times"}) // exactly the spec's reply, lower case
	is.Equal(reply["status"], "Planned")                                 // the engine's default status
	materials := reply["materials"].([]any)
	is.Equal(len(materials), 2)
	is.Equal(materials[1], map[string]any{"id": materials[1].(map[string]any)["id"], "productNr": "4011"})
	times := reply["times"].([]any)
	is.Equal(times[0].(map[string]any)["timeType"], "Resa, km/dag") // a name with a comma, whole

	task := getTask(t, env, reply["nr"].(string))
	is.Equal(task["Id"], reply["id"]) // the engine fills the read-only Id: the task's row number
	id, _ := task["Id"].(string)
	row, err := strconv.ParseInt(id, 10, 64)
	is.NoErr(err)
	is.True(row > 0)
	resp = env.Post("/v1/tasks", map[string]any{"customerNr": "1002"})
	Expect(t, resp, http.StatusCreated)
	var next map[string]any
	resp.JSON(t, &next)
	nextRow, err := strconv.ParseInt(fmt.Sprint(next["id"]), 10, 64)
	is.NoErr(err)
	is.True(nextRow > row) // row numbers increase from task to task

	is.Equal(task["OwnerSign"], "API") // omitted: the integration's own signature
	is.Equal(task["CreatedBy"], "API")
	is.Equal(task["CustomerName"], "Lindgren Fastigheter AB")
	is.Equal(len(task["Materials"].([]any)), 2)
	is.Equal(task["Materials"].([]any)[0].(map[string]any)["Id"], materials[0].(map[string]any)["id"])
	is.Equal(len(task["Times"].([]any)), 1)
	is.Equal(task["UserSigns"], []any{})
	is.Equal(task["AssigneeStatuses"], map[string]any{})
	is.True(task["ExtraFields"] != nil)
	is.Equal(taskLog(t, env, reply["nr"].(string), "create line"), 3) // each line logged on the task
}

// testTaskCreateIsAllOrNothing sends creates the engine refuses: each
// leaves no task, line, log row or used number behind.
func testTaskCreateIsAllOrNothing(t *testing.T, env *Env) {
	lines := map[string]any{
		"materials": []any{map[string]any{"productNr": "4001", "quantity": 1}, map[string]any{"productNr": "4002", "quantity": 2}},
		"times":     []any{map[string]any{"timeType": "Normaltid", "hours": 2}},
	}
	with := func(fields map[string]any) map[string]any {
		body := map[string]any{"customerNr": "1003", "userSigns": []string{"ANLI"}, "extraFields": map[string]string{"Visit.Type": "Repair"}}
		for k, v := range lines {
			body[k] = v
		}
		for k, v := range fields {
			body[k] = v
		}
		return body
	}
	timeTypes := []string{}
	for _, item := range env.page(t, "/v1/timetypes?limit=500").Items {
		timeTypes = append(timeTypes, item["Name"].(string))
	}
	slices.Sort(timeTypes)

	cases := []struct {
		name   string
		body   map[string]any
		detail string
		valid  []string // nil: not checked
	}{
		{"unknown product in the second line", with(map[string]any{"materials": []any{
			map[string]any{"productNr": "4001", "quantity": 1}, map[string]any{"productNr": "9999", "quantity": 1}}}),
			`materials[1]: Product "9999" does not exist`, nil},
		{"unknown time type", with(map[string]any{"times": []any{map[string]any{"timeType": "Normaltid, helg", "hours": 1}}}),
			`times[0]: `, timeTypes},
		{"status the rules refuse", with(map[string]any{"status": "Finished"}), "cannot move from Planned to Finished", []string{"Sent", "Archived"}},
		{"status that is none", with(map[string]any{"status": "Done"}), `"Done" is not a task status`, taskStatuses},
		{"status without owner", with(map[string]any{"status": "Sent", "ownerSign": ""}), "owner is required", nil},
		{"unknown customer", with(map[string]any{"customerNr": "0000"}), `Customer "0000" does not exist`, nil},
		{"unknown assignee", with(map[string]any{"userSigns": []string{"ANLI", "NOBODY"}}), `User "NOBODY" does not exist`, nil},
		{"unknown project", with(map[string]any{"projectNr": "999"}), `Project "999" does not exist`, nil},
		{"unknown price list", with(map[string]any{"priceListNr": "77"}), `PriceList "77" does not exist`, nil},
		{"unknown object", with(map[string]any{"object2Nr": "299"}), `does not exist`, nil},
		{"unknown extra field", with(map[string]any{"extraFields": map[string]string{"Shoe.Size": "44"}}), "Shoe.Size", nil},
		{"clock time on a Day plan", with(map[string]any{"planStartDate": "2025-09-01T08:00:00", "planDateType": "Day"}), "Day", []string{"FromTo", "Fixed"}},
	}

	first := newTask(t, env, with(nil))
	before := traceTasks(t, env)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			p := refusal(t, env.SkipRequestValidation().Post("/v1/tasks", tc.body)) // refusals, some of values the document does not allow
			is.True(strings.Contains(p.Detail, tc.detail))                          // the engine's text names the cause
			if tc.valid != nil {
				got := slices.Clone(p.ValidValues)
				slices.Sort(got)
				want := slices.Clone(tc.valid)
				slices.Sort(want)
				is.Equal(got, want)
			}
			is.Equal(traceTasks(t, env), before) // no task, line or log row left
		})
	}
	// No number was used (where the series give numbers back): the next
	// task takes the one after the first, and its change log holds its own
	// create alone: a refusal, which had the same number, left no entry
	// under it.
	is := is.New(t)
	n, _ := strconv.Atoi(first)
	next := newTask(t, env, with(nil))
	env.NextNumber(t, next, n)
	is.Equal(actions(changesOf(t, env, "tasks", next, "")), []string{"create", "create line", "create line", "create line"})
}

func testTaskStatus(t *testing.T, env *Env) {
	status := func(nr, to string) Response {
		return env.Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": to})
	}

	t.Run("applied last on create", func(t *testing.T) {
		is := is.New(t)
		resp := env.Post("/v1/tasks", map[string]any{
			"customerNr": "1004", "status": "Sent", "userSigns": []string{"ANLI", "MASV"},
			"materials": []any{map[string]any{"productNr": "4005", "quantity": 2}},
		})
		Expect(t, resp, http.StatusCreated)
		reply := resp.Object(t)
		is.Equal(reply["status"], "Sent")
		task := getTask(t, env, reply["nr"].(string))
		is.Equal(task["Status"], "Sent")
		// Assigned before the status was applied, the assignees moved with it.
		is.Equal(task["AssigneeStatuses"], map[string]any{"ANLI": "Sent", "MASV": "Sent"})
	})

	t.Run("the engine's transitions", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1005", "userSigns": []string{"ERJO"}})
		for _, step := range []struct {
			to    string
			allow bool
		}{
			{"Sent", true}, {"Finished", false}, {"Received", true}, {"InProgress", true},
			{"Archived", false}, {"Finished", true}, {"InProgress", true}, {"Received", true},
			{"Planned", true}, {"Archived", true}, {"Finished", true},
		} {
			resp := status(nr, step.to)
			if !step.allow {
				from := getTask(t, env, nr)["Status"]
				p := refusal(t, resp)
				is.True(strings.Contains(p.Detail, fmt.Sprintf("from %s to %s", from, step.to)))
				is.True(len(p.ValidValues) > 0) // where it can move instead
				is.True(!slices.Contains(p.ValidValues, step.to))
				continue
			}
			Expect(t, resp, http.StatusOK)
			task := resp.Object(t)
			is.Equal(task["Status"], step.to)                                   // the action answers with the task
			is.Equal(task["AssigneeStatuses"], map[string]any{"ERJO": step.to}) // the assignee moves with it
		}
		is.Equal(taskLog(t, env, nr, "status"), 9) // every move logged on the task
	})

	t.Run("parallel moves: one wins", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1005"})
		var wg sync.WaitGroup
		codes := make([]int, 12)
		for i := range codes {
			wg.Go(func() {
				to := []string{"Sent", "Archived"}[i%2] // both allowed from Planned, not from each other
				codes[i] = status(nr, to).Status
			})
		}
		wg.Wait()
		for _, code := range codes {
			is.True(code == http.StatusOK || code == http.StatusUnprocessableEntity || code == http.StatusServiceUnavailable)
		}
		is.Equal(taskLog(t, env, nr, "status"), 1) // a move is checked against the status it moves from
	})

	t.Run("same status changes nothing", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1005"})
		before := getTask(t, env, nr)
		resp := status(nr, "Planned")
		Expect(t, resp, http.StatusOK)
		is.Equal(resp.Object(t)["Modified"], before["Modified"])
		is.Equal(taskLog(t, env, nr, "status"), 0)
	})

	t.Run("invalid value", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1005"})
		p := refusal(t, env.SkipRequestValidation().Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": "Cancelled"})) // a status the document does not allow
		is.Equal(p.ValidValues, taskStatuses)
	})

	t.Run("owner required", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1006", "ownerSign": ""})
		task := getTask(t, env, nr)
		is.Equal(task["OwnerSign"], "") // sent empty: no owner
		p := refusal(t, status(nr, "Sent"))
		is.True(strings.Contains(p.Detail, "owner is required"))
		is.Equal(getTask(t, env, nr)["Status"], "Planned")

		Expect(t, env.Patch(KeyPath("tasks", nr), map[string]any{"ownerSign": "MASV"}), http.StatusOK)
		Expect(t, status(nr, "Sent"), http.StatusOK)
	})

	t.Run("not by PATCH", func(t *testing.T) {
		is := is.New(t)
		nr := newTask(t, env, map[string]any{"customerNr": "1006"})
		for _, body := range []map[string]any{{"status": "Sent"}, {"customerNr": "1007"}} {
			resp := env.SkipRequestValidation().Patch(KeyPath("tasks", nr), body)
			Expect(t, resp, http.StatusBadRequest)
			is.Equal(resp.Problem(t).Title, "read_only_field")
		}
		task := getTask(t, env, nr)
		is.Equal(task["Status"], "Planned")
		is.Equal(task["CustomerNr"], "1006")
	})
}

func testTaskAssignees(t *testing.T, env *Env) {
	is := is.New(t)
	path := func(nr string) string { return KeyPath("tasks", nr) }
	nr := newTask(t, env, map[string]any{"customerNr": "1008", "userSigns": []string{"ANLI"}, "actionText": "Byt filter"})
	is.Equal(getTask(t, env, nr)["AssigneeStatuses"], map[string]any{"ANLI": "Planned"})
	Expect(t, env.Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": "Sent"}), http.StatusOK)

	// One assignee becomes two: ANLI keeps Sent, MASV starts at
	// Planned, and the engine marks the action text with ANLI.
	resp := env.Patch(path(nr), map[string]any{"userSigns": []string{"ANLI", "MASV"}})
	Expect(t, resp, http.StatusOK)
	task := resp.Object(t)
	is.Equal(task["UserSigns"], []any{"ANLI", "MASV"})
	is.Equal(task["AssigneeStatuses"], map[string]any{"ANLI": "Sent", "MASV": "Planned"})
	is.Equal(task["ActionText"], "[ANLI] Byt filter")
	for _, name := range []string{"Materials", "Times", "ExtraFields", "Nr", "Id", "Status"} {
		is.True(task[name] != nil) // PATCH answers with the whole task
	}

	// Omitted: untouched. Two become three: no new marking.
	resp = env.Patch(path(nr), map[string]any{"taskText": "Filterbyte", "userSigns": nil})
	Expect(t, resp, http.StatusOK)
	is.Equal(resp.Object(t)["UserSigns"], []any{"ANLI", "MASV"})
	resp = env.Patch(path(nr), map[string]any{"userSigns": []string{"MASV", "ERJO", "ANLI"}})
	Expect(t, resp, http.StatusOK)
	task = resp.Object(t)
	is.Equal(task["AssigneeStatuses"], map[string]any{"ANLI": "Sent", "MASV": "Planned", "ERJO": "Planned"})
	is.Equal(task["ActionText"], "[ANLI] Byt filter")

	// Unknown signature: refused, assignment unchanged.
	p := refusal(t, env.Patch(path(nr), map[string]any{"userSigns": []string{"ANLI", "XYZ"}}))
	is.True(strings.Contains(p.Detail, `"XYZ"`))
	is.Equal(getTask(t, env, nr)["UserSigns"], []any{"MASV", "ERJO", "ANLI"})

	// [] clears.
	resp = env.Patch(path(nr), map[string]any{"userSigns": []string{}})
	Expect(t, resp, http.StatusOK)
	is.Equal(resp.Object(t)["UserSigns"], []any{})
	is.Equal(resp.Object(t)["AssigneeStatuses"], map[string]any{})

	// A sole assignee whose action text is sent in the same PATCH: the mark goes in front of it.
	nr = newTask(t, env, map[string]any{"customerNr": "1008", "userSigns": []string{"ERJO"}})
	resp = env.Patch(path(nr), map[string]any{"userSigns": []string{"ERJO", "ANLI"}, "actionText": "Larm HP"})
	Expect(t, resp, http.StatusOK)
	is.Equal(resp.Object(t)["ActionText"], "[ERJO] Larm HP")
}

func testTaskPlanDates(t *testing.T, env *Env) {
	type plan struct{ start, stop, kind string }
	create := []struct {
		name  string
		sent  map[string]any
		want  plan
		valid []string // refused with these validValues
	}{
		{"date only: Day", map[string]any{"planStartDate": "2025-09-01"}, plan{"2025-09-01", "2025-09-01", "Day"}, nil},
		{"with time: FromTo to the end of the day", map[string]any{"planStartDate": "2025-09-01T08:00:00"}, plan{"2025-09-01T08:00:00", "2025-09-01T23:59:59", "FromTo"}, nil},
		{"end of day keeps the zone", map[string]any{"planStartDate": "2025-09-01T08:00:00+02:00"}, plan{"2025-09-01T08:00:00+02:00", "2025-09-01T23:59:59+02:00", "FromTo"}, nil},
		{"FromTo with a stop", map[string]any{"planStartDate": "2025-09-01T08:00:00Z", "planStopDate": "2025-09-03T16:00:00Z"}, plan{"2025-09-01T08:00:00Z", "2025-09-03T16:00:00Z", "FromTo"}, nil},
		{"dates over days, FromTo", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-05", "planDateType": "FromTo"}, plan{"2025-09-01", "2025-09-05", "FromTo"}, nil},
		{"Day ignores a later stop", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-04", "planDateType": "Day"}, plan{"2025-09-01", "2025-09-01", "Day"}, nil},
		{"date with stop and no type: Day", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-04"}, plan{"2025-09-01", "2025-09-01", "Day"}, nil},
		{"Week keeps its stop", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-05", "planDateType": "Week"}, plan{"2025-09-01", "2025-09-05", "Week"}, nil},
		{"Month without stop", map[string]any{"planStartDate": "2025-09-01", "planDateType": "Month"}, plan{"2025-09-01", "2025-09-01", "Month"}, nil},
		{"Fixed with time", map[string]any{"planStartDate": "2025-09-01T13:30:00", "planDateType": "Fixed"}, plan{"2025-09-01T13:30:00", "2025-09-01T23:59:59", "Fixed"}, nil},
		{"Day with a clock time", map[string]any{"planStartDate": "2025-09-01T08:00:00", "planDateType": "Day"}, plan{}, []string{"FromTo", "Fixed"}},
		{"Week with a clock time", map[string]any{"planStartDate": "2025-09-01T08:00:00", "planDateType": "Week"}, plan{}, []string{"FromTo", "Fixed"}},
		{"Month with a clock time in the stop", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-30T17:00:00", "planDateType": "Month"}, plan{}, []string{"FromTo", "Fixed"}},
		{"unknown type", map[string]any{"planStartDate": "2025-09-01", "planDateType": "Daily"}, plan{}, []string{"FromTo", "Day", "Week", "Month", "Fixed"}},
		{"stop before start", map[string]any{"planStartDate": "2025-09-02T08:00:00", "planStopDate": "2025-09-01T08:00:00"}, plan{}, []string{}},
		{"stop without start", map[string]any{"planStopDate": "2025-09-02"}, plan{}, []string{}},
	}
	read := func(task map[string]any) plan {
		text := func(name string) string { s, _ := task[name].(string); return s }
		return plan{text("PlanStartDate"), text("PlanStopDate"), text("PlanDateType")}
	}
	for _, tc := range create {
		t.Run("create/"+tc.name, func(t *testing.T) {
			is := is.New(t)
			body := map[string]any{"customerNr": "1009"}
			for k, v := range tc.sent {
				body[k] = v
			}
			sender := env
			if tc.valid != nil {
				sender = env.SkipRequestValidation() // refusals, some of plan date types the document does not allow
			}
			resp := sender.Post("/v1/tasks", body)
			if tc.valid != nil {
				p := refusal(t, resp)
				if len(tc.valid) > 0 {
					is.Equal(p.ValidValues, tc.valid)
				}
				return
			}
			Expect(t, resp, http.StatusCreated)
			is.Equal(read(getTask(t, env, resp.Object(t)["nr"].(string))), tc.want)
		})
	}

	// PATCH may send some of the three; the others are the task's.
	update := []struct {
		name    string
		initial map[string]any
		sent    map[string]any
		want    plan
		refused bool
	}{
		{"a time on a Day task makes it FromTo", map[string]any{"planStartDate": "2025-09-01"},
			map[string]any{"planStartDate": "2025-09-02T09:00:00"}, plan{"2025-09-02T09:00:00", "2025-09-02T23:59:59", "FromTo"}, false},
		{"a new start begins a new period", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-05", "planDateType": "Week"},
			map[string]any{"planStartDate": "2025-09-08"}, plan{"2025-09-08", "2025-09-08", "Week"}, false},
		{"the stop alone", map[string]any{"planStartDate": "2025-09-01T08:00:00"},
			map[string]any{"planStopDate": "2025-09-01T12:00:00"}, plan{"2025-09-01T08:00:00", "2025-09-01T12:00:00", "FromTo"}, false},
		{"the type alone: Day drops the stop", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-03", "planDateType": "FromTo"},
			map[string]any{"planDateType": "Day"}, plan{"2025-09-01", "2025-09-01", "Day"}, false},
		{"the type alone: Day on clock times", map[string]any{"planStartDate": "2025-09-01T08:00:00"},
			map[string]any{"planDateType": "Day"}, plan{}, true},
		{"clearing the start clears the stop", map[string]any{"planStartDate": "2025-09-01"},
			map[string]any{"planStartDate": ""}, plan{"", "", "Day"}, false},
		{"other fields leave the plan", map[string]any{"planStartDate": "2025-09-01", "planStopDate": "2025-09-05", "planDateType": "FromTo"},
			map[string]any{"taskText": "Ny text"}, plan{"2025-09-01", "2025-09-05", "FromTo"}, false},
	}
	for _, tc := range update {
		t.Run("patch/"+tc.name, func(t *testing.T) {
			is := is.New(t)
			body := map[string]any{"customerNr": "1009"}
			for k, v := range tc.initial {
				body[k] = v
			}
			nr := newTask(t, env, body)
			before := read(getTask(t, env, nr))
			resp := env.Patch(KeyPath("tasks", nr), tc.sent)
			if tc.refused {
				p := refusal(t, resp)
				is.Equal(p.ValidValues, []string{"FromTo", "Fixed"})
				is.Equal(read(getTask(t, env, nr)), before)
				return
			}
			Expect(t, resp, http.StatusOK)
			is.Equal(read(resp.Object(t)), tc.want)
		})
	}
}

func testTaskMaterialPricing(t *testing.T, env *Env) {
	is := is.New(t)
	// Product 4001 has BasePrice 98500; price list 2 a markup of 12.5 %.
	resp := env.Post("/v1/tasks", map[string]any{
		"customerNr": "1010", "priceListNr": "2",
		"materials": []any{
			map[string]any{"productNr": "4001", "quantity": 1},
			map[string]any{"productNr": "4001", "quantity": 1, "discountPct": 10},
			map[string]any{"productNr": "4001", "quantity": 1, "price": 90000},
		},
	})
	Expect(t, resp, http.StatusCreated)
	nr := resp.Object(t)["nr"].(string)
	lines := getTask(t, env, nr)["Materials"].([]any)
	price := func(i int) any { return lines[i].(map[string]any)["Price"] }
	is.Equal(price(0), 110812.5) // 98500 + 12.5 %
	is.Equal(price(1), 99731.25) // less 10 %
	is.Equal(price(2), 90000.0)  // a price sent is the price agreed
	first := lines[0].(map[string]any)
	is.Equal(first["ProductName"], "Värmepump luft/vatten 12 kW") // from the product
	is.Equal(first["Unit"], "st")
	is.Equal(first["OwnerType"], "task")
	is.Equal(first["OwnerNr"], nr)

	// A line added later is priced the same way; without a price list at the base price.
	added := env.Post(KeyPath("tasks", nr, "/materials"), map[string]any{"productNr": "4005", "quantity": 3})
	Expect(t, added, http.StatusCreated)
	is.Equal(added.Object(t)["Price"], 472.5) // 420 + 12.5 %
	plain := newTask(t, env, map[string]any{"customerNr": "1010", "materials": []any{map[string]any{"productNr": "4005", "quantity": 1}}})
	is.Equal(getTask(t, env, plain)["Materials"].([]any)[0].(map[string]any)["Price"], 420.0)

	// An unknown product, posted alone: refused, nothing added.
	p := refusal(t, env.Post(KeyPath("tasks", nr, "/materials"), map[string]any{"productNr": "0001", "quantity": 1}))
	is.Equal(p.Detail, `Product "0001" does not exist`)
	is.Equal(len(getTask(t, env, nr)["Materials"].([]any)), 4)
}

func testTaskNotesAndChangeLog(t *testing.T, env *Env) {
	is := is.New(t)
	nr := newTask(t, env, map[string]any{"customerNr": "1011", "times": []any{map[string]any{"timeType": "Normaltid", "hours": 1}}})

	resp := env.Post(KeyPath("tasks", nr, "/notes"), map[string]any{"text": "Kunden ringde: porten är låst, nyckel i receptionen"})
	Expect(t, resp, http.StatusOK)
	is.Equal(resp.Object(t)["Nr"], nr) // answers with the task
	notes := readChanges(t, env, KeyPath("tasks", nr, "/notes"))
	is.Equal(len(notes), 1)
	is.Equal(notes[0].Detail, "Kunden ringde: porten är låst, nyckel i receptionen")
	is.Equal(notes[0].Sign, "API")
	refusal(t, env.Post(KeyPath("tasks", nr, "/notes"), map[string]any{"text": "  "}))
	is.Equal(len(readChanges(t, env, KeyPath("tasks", nr, "/notes"))), 1) // a refused note is not logged

	// Every write logs on the task, via the API.
	Expect(t, env.Patch(KeyPath("tasks", nr), map[string]any{"taskNote": "Ring innan"}), http.StatusOK)
	Expect(t, env.Post(KeyPath("tasks", nr, "/status"), map[string]any{"status": "Sent"}), http.StatusOK)
	Expect(t, env.Post(KeyPath("tasks", nr, "/times"), map[string]any{"timeType": "Normaltid", "hours": 2}), http.StatusCreated)
	Expect(t, env.Post(KeyPath("tasks", nr, "/materials"), map[string]any{"productNr": "4011", "quantity": 2}), http.StatusCreated)
	Expect(t, env.Post(KeyPath("tasks", nr, "/documents"), map[string]any{"name": "notering.txt", "contentBase64": "aGVq"}), http.StatusCreated)
	Expect(t, env.Do(Request{Method: http.MethodPut, Path: KeyPath("tasks", nr, "/location"), Key: env.Key,
		Body: map[string]any{"latitude": 59.3, "longitude": 18.1}}), http.StatusOK)
	for action, n := range map[string]int{"create": 1, "create line": 3, "note": 1, "update": 1, "status": 1, "add document": 1, "pin location": 1} {
		is.Equal(taskLog(t, env, nr, action), n) // one entry per write
	}
	all := changesOf(t, env, "tasks", nr, "")
	is.Equal(len(all), 9)
	for _, c := range all {
		is.True(c.ViaAPI && c.Sign == "API") // every one via the API, signed with the key's signature
	}
}

func testTaskLists(t *testing.T, env *Env) {
	all := env.page(t, "/v1/tasks?limit=500")

	t.Run("status filter", func(t *testing.T) {
		is := is.New(t)
		byStatus := map[string]int{}
		for _, item := range all.Items {
			byStatus[item["Status"].(string)]++
		}
		for _, s := range taskStatuses {
			is.True(byStatus[s] > 0) // the demo has tasks in every status
		}
		p := env.page(t, "/v1/tasks?limit=500&status=Sent,InProgress")
		is.Equal(*p.Total, byStatus["Sent"]+byStatus["InProgress"])
		is.Equal(len(p.Items), *p.Total)
		for _, item := range p.Items {
			is.True(item["Status"] == "Sent" || item["Status"] == "InProgress")
		}
		is.Equal(*env.page(t, "/v1/tasks?status=Archived").Total, byStatus["Archived"])
	})

	t.Run("customer filter", func(t *testing.T) {
		is := is.New(t)
		p := env.page(t, "/v1/tasks?customerNr=1001")
		is.True(len(p.Items) > 0)
		for _, item := range p.Items {
			is.Equal(item["CustomerNr"], "1001")
		}
	})

	t.Run("pages and cursors", func(t *testing.T) {
		is := is.New(t)
		is.True(len(all.Items) >= 60)
		is.Equal(*all.Total, len(all.Items))
		var byPage, byCursor []string
		for n := 1; ; n++ {
			p := env.page(t, fmt.Sprintf("/v1/tasks?limit=25&page=%d", n))
			for _, item := range p.Items {
				byPage = append(byPage, item["Nr"].(string))
			}
			if len(p.Items) < 25 {
				break
			}
		}
		path := "/v1/tasks?limit=25"
		for {
			p := env.page(t, path)
			for _, item := range p.Items {
				byCursor = append(byCursor, item["Nr"].(string))
				is.True(item["Materials"] != nil && item["ExtraFields"] != nil) // list items are whole tasks
			}
			if p.NextCursor == nil {
				break
			}
			path = "/v1/tasks?limit=25&cursor=" + *p.NextCursor
		}
		want := []string{}
		for _, item := range all.Items {
			want = append(want, item["Nr"].(string))
		}
		is.Equal(byPage, want)
		is.Equal(byCursor, want)
		is.Equal(want[len(want)-1], "10001") // newest first
	})

	t.Run("each company its own tasks", func(t *testing.T) {
		is := is.New(t)
		mine := getTask(t, env, "10001")
		theirs := env.Do(Request{Method: http.MethodGet, Path: KeyPath("tasks", "10001"), Key: env.OtherKey})
		Expect(t, theirs, http.StatusOK)
		is.True(theirs.Object(t)["CustomerNr"] != mine["CustomerNr"]) // same number, another task
		resp := env.Get(KeyPath("tasks", "50001"))
		Expect(t, resp, http.StatusNotFound)
	})
}
