package scaletest

import (
	"database/sql"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fieldapi/internal/dbtest"
)

// TestRecordCountsExactAcrossProcesses checks the list totals the engine
// keeps per company and register (record_counts) against the rows, on
// PostgreSQL: after parallel creates of tasks with lines through two
// processes, some of them refused (rolled back after rows were inserted);
// after one process is killed with SIGKILL in the middle of its writes; and
// after "fieldapi init" on a database whose counters are missing.
func TestRecordCountsExactAcrossProcesses(t *testing.T) {
	t.Parallel()
	dsn := patient(t, dbtest.Schema(t, postgresBase(t)))
	initDemo(t, dsn)
	key := createKey(t, dsn, "count-client")
	flags := []string{"--rate-limit", "0", "--max-open-conns", poolPerProcess}
	// b's connections are named, to know when PostgreSQL is done with them
	// after b is killed.
	killed := "fieldapi-killed-" + randomHex(4)
	a, b := startServe(t, dsn, flags...), startServe(t, dbtest.WithParam(t, dsn, "application_name", killed), flags...)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	task := func(i int) call {
		lines := []map[string]any{{"productNr": "4025", "quantity": 1}}
		if i%5 == 4 {
			lines = append(lines, map[string]any{"productNr": "no-such-product", "quantity": 1})
		}
		return call{method: http.MethodPost, path: "/v1/tasks", bearer: key, body: map[string]any{
			"customerNr": "1001", "taskText": fmt.Sprintf("Count %d", i), "materials": lines,
			"times": []map[string]any{{"timeType": "Normaltid", "hours": 1}}}}
	}

	t.Run("parallel creates on two processes, some refused", func(t *testing.T) {
		var wg sync.WaitGroup
		var created, refused atomic.Int64
		for i := range 100 {
			wg.Go(func() {
				r, err := []*server{a, b}[i%2].try(task(i))
				switch {
				case err != nil:
					t.Error(err)
				case r.status == http.StatusCreated:
					created.Add(1)
				case r.status == http.StatusUnprocessableEntity:
					refused.Add(1)
				default:
					t.Errorf("status %d: %s", r.status, r.body)
				}
			})
		}
		wg.Wait()
		if created.Load() != 80 || refused.Load() != 20 {
			t.Errorf("created %d, refused %d; want 80 and 20", created.Load(), refused.Load())
		}
		countsMatchRows(t, db)
	})

	t.Run("a process killed mid-write leaves exact counts", func(t *testing.T) {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var sent atomic.Int64
		for w := range 8 {
			wg.Go(func() {
				for i := w; ; i += 8 {
					select {
					case <-stop:
						return
					default:
					}
					sent.Add(1)
					b.try(task(i)) // fails once b is gone
				}
			})
		}
		time.Sleep(300 * time.Millisecond)
		var open int
		if err := db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1`, killed).Scan(&open); err != nil || open == 0 {
			t.Fatalf("%d connections of server b by its application_name (%v): the wait below would see none", open, err)
		}
		b.cmd.Process.Kill() // SIGKILL: no graceful shutdown, transactions cut off
		<-b.done
		// A COMMIT b sent with its last rows before it died may still be
		// committed: counting before its backend is gone races with it.
		waitBackendsGone(t, db, killed)
		close(stop)
		wg.Wait()
		if sent.Load() < 8 {
			t.Fatalf("only %d creates were sent before the kill", sent.Load())
		}
		// The server sees the dropped connections and rolls back their
		// transactions; what committed is counted, what did not is not.
		countsMatchRows(t, db)
		a.do(t, task(0)).expect(t, http.StatusCreated)
		countsMatchRows(t, db)
	})

	t.Run("init fills the counters of a database that has none", func(t *testing.T) {
		if _, err := db.Exec(`DELETE FROM record_counts`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`DELETE FROM record_count_deltas`); err != nil {
			t.Fatal(err)
		}
		cli(t, "init", "--db", dsn)
		countsMatchRows(t, db)
		var companies int
		if err := db.QueryRow(`SELECT COUNT(*) FROM record_counts WHERE register = 'tasks'`).Scan(&companies); err != nil || companies != 2 {
			t.Errorf("task counters for %d companies (%v), want 2", companies, err)
		}
	})
}

// countsMatchRows compares every counter row of the registers the test
// writes with a count of the rows, per company.
func countsMatchRows(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, register := range []string{"tasks", "materials", "times", "customers"} {
		// A count is its row plus the deltas not merged into it yet.
		rows, err := db.Query(`SELECT c.company, SUM(c.n), (SELECT COUNT(*) FROM `+register+` r WHERE r.company = c.company)
			FROM (SELECT company, n FROM record_counts WHERE register = $1 UNION ALL SELECT company, n FROM record_count_deltas WHERE register = $1) c
			GROUP BY c.company`, register)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for rows.Next() {
			var company string
			var stored, counted int
			if err := rows.Scan(&company, &stored, &counted); err != nil {
				t.Fatal(err)
			}
			seen++
			if stored != counted {
				t.Errorf("%s of %s: record_counts says %d, the table holds %d", register, company, stored, counted)
			}
		}
		rows.Close()
		if seen == 0 {
			t.Errorf("no counter rows for %s", register)
		}
	}
}

// waitBackendsGone waits until PostgreSQL has no connection named
// application, polling its activity view (a server-side state, no clock
// of ours to inject).
func waitBackendsGone(t *testing.T, db *sql.DB, application string) {
	t.Helper()
	for range 1000 {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1`, application).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("connections of the killed server %s still open after 10 s", application)
}
