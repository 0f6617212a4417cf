package sqldb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"fieldapi/engine"
)

// groupDB is a SQLite database with the table "t" ("k" unique) and a
// write holding the lead of the write queue until release is closed, so
// the writes a test starts meanwhile queue and then run as one group,
// once that write (a group of its own, "lead") has committed.
func groupDB(t *testing.T) (db *DB, release chan struct{}, leader chan error) {
	t.Helper()
	db = open(t, "sqlite:"+filepath.Join(t.TempDir(), "group.db"), Options{})
	if err := db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE "t" ("k" TEXT PRIMARY KEY)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	release, leader = make(chan struct{}), make(chan error, 1)
	running := make(chan struct{})
	go func() {
		leader <- db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
			close(running)
			<-release
			return insertKey(ctx, tx, "lead")
		})
	}()
	<-running
	return db, release, leader
}

func insertKey(ctx context.Context, tx *Tx, k string) error {
	_, err := Exec(ctx, tx, `INSERT INTO "t" ("k") VALUES (?)`, k)
	return err
}

// startWrites starts one Write per fn, each after the one before has
// queued, and returns their answers' channels in the same order.
func startWrites(t *testing.T, db *DB, fns ...func(ctx context.Context, tx *Tx) error) []chan error {
	t.Helper()
	answers := make([]chan error, len(fns))
	for i, fn := range fns {
		answers[i] = startWrite(db, context.Background(), fn, i+1)
	}
	return answers
}

// waitQueued waits until n writes wait in the queue behind the leader.
func waitQueued(db *DB, n int) {
	for {
		db.queue.mu.Lock()
		queued := len(db.queue.waiting)
		db.queue.mu.Unlock()
		if queued >= n {
			return
		}
		runtime.Gosched()
	}
}

// expectStored checks that the table holds exactly the keys want, in order.
func expectStored(t *testing.T, db *DB, want ...string) {
	t.Helper()
	if got := storedKeys(t, db); !slices.Equal(got, want) {
		t.Errorf("stored %d keys %v; want %v", len(got), got[:min(len(got), 8)], want)
	}
}

func storedKeys(t *testing.T, db *DB) []string {
	t.Helper()
	var keys []string
	if err := db.Read(context.Background(), func(ctx context.Context, q Querier) error {
		return Select(ctx, q, &keys, `SELECT "k" FROM "t" ORDER BY "k"`)
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestGroupedWritesStayApart: writes that queued behind another commit in
// one transaction, and each is still all or nothing: one that fails (its
// own error, a unique key taken by a write before it in the group) leaves
// nothing and runs its OnRollback functions, and the others commit.
func TestGroupedWritesStayApart(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	refused := errors.New("refused")
	undone := map[string]bool{}
	var seenOutside []string
	answers := startWrites(t, db,
		func(ctx context.Context, tx *Tx) error {
			tx.OnRollback(func() { undone["a"] = true })
			return insertKey(ctx, tx, "a")
		},
		func(ctx context.Context, tx *Tx) error {
			tx.OnRollback(func() { undone["b"] = true })
			if err := insertKey(ctx, tx, "b"); err != nil {
				return err
			}
			return refused
		},
		func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "a") },
		func(ctx context.Context, tx *Tx) error {
			// Another connection sees none of the group yet: it commits
			// after this write, as one.
			seenOutside = storedKeys(t, db)
			return insertKey(ctx, tx, "c")
		},
	)
	close(release)
	if err := <-leader; err != nil {
		t.Fatalf("the leading write: %v", err)
	}
	if err := <-answers[0]; err != nil {
		t.Errorf("write a: %v", err)
	}
	if err := <-answers[1]; !errors.Is(err, refused) {
		t.Errorf("the write that refused: %v; want its own error", err)
	}
	if err := <-answers[2]; err == nil {
		t.Errorf("the write of a key the group's write a took: no error")
	}
	if err := <-answers[3]; err != nil {
		t.Errorf("write c: %v", err)
	}
	expectStored(t, db, "a", "c", "lead")
	if !slices.Equal(seenOutside, []string{"lead"}) {
		t.Errorf("a reader saw %v before the group committed; want [lead] alone: the writes commit together", seenOutside)
	}
	if !undone["b"] || undone["a"] {
		t.Errorf("OnRollback ran for %v; want the refused write's only", undone)
	}
	// The table's creation and the leading write were groups of one; the
	// four queued writes one group, of which two committed.
	if st := db.Stats(); st.WriteGroups != 3 || st.GroupedWrites != 4 {
		t.Errorf("Stats: %d groups, %d writes; want 3 groups of 4 writes", st.WriteGroups, st.GroupedWrites)
	}
}

// TestGroupTransactionEndedByAWrite: when a write's failure ends the
// shared transaction itself, the writes it held answer engine.ErrBusy,
// safe to retry, and nothing of them stays; the writes not run yet run
// in a transaction of their own.
func TestGroupTransactionEndedByAWrite(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	answers := startWrites(t, db,
		func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "a") },
		func(ctx context.Context, tx *Tx) error {
			_, err := tx.sqlTx.ExecContext(ctx, `ROLLBACK`)
			return err
		},
		func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "c") },
	)
	close(release)
	if err := <-leader; err != nil {
		t.Fatalf("the leading write: %v", err)
	}
	if err := <-answers[0]; !errors.Is(err, engine.ErrBusy) {
		t.Errorf("write a, held by the ended transaction: %v; want engine.ErrBusy", err)
	}
	if err := <-answers[1]; err == nil {
		t.Errorf("the write that ended the transaction: no error")
	}
	if err := <-answers[2]; err != nil {
		t.Errorf("write c, not run when the transaction ended: %v; want it run after", err)
	}
	expectStored(t, db, "c", "lead")
}

// TestGroupedWritePanics: a write that panics in a group another call
// runs panics in its own call; the group's other writes commit.
func TestGroupedWritePanics(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_ = db.Write(context.Background(), func(ctx context.Context, tx *Tx) error {
			if err := insertKey(ctx, tx, "p"); err != nil {
				return err
			}
			panic("write p")
		})
	}()
	waitQueued(db, 1)
	answers := startWrites(t, db, func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "a") })
	close(release)
	if p := <-panicked; p != "write p" {
		t.Errorf("the panicking write's call recovered %v; want its panic", p)
	}
	if err := <-leader; err != nil {
		t.Errorf("the leading write: %v", err)
	}
	if err := <-answers[0]; err != nil {
		t.Errorf("write a: %v", err)
	}
	expectStored(t, db, "a", "lead")
}

// TestQueuedWriteGivesUp: a write whose caller gives up while it waits
// in the queue leaves it and never runs.
func TestQueuedWriteGivesUp(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	ran := false
	answer := make(chan error, 1)
	go func() {
		answer <- db.Write(ctx, func(ctx context.Context, tx *Tx) error {
			ran = true
			return insertKey(ctx, tx, "late")
		})
	}()
	waitQueued(db, 1)
	cancel()
	if err := <-answer; !errors.Is(err, context.Canceled) {
		t.Errorf("the write given up: %v; want context.Canceled", err)
	}
	close(release)
	if err := <-leader; err != nil {
		t.Errorf("the leading write: %v", err)
	}
	if ran {
		t.Errorf("the given-up write ran")
	}
	expectStored(t, db, "lead")
}

// TestGroupedWritePastItsDeadline: a write of a group whose deadline
// passes inside a long statement is not interrupted (SQLite would roll
// the whole group's transaction back, the other writes with it): the
// statement ends, the write's next statement fails, the write rolls back
// to its savepoint and answers that it wrote nothing, and the group's
// other writes commit.
func TestGroupedWritePastItsDeadline(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	slow, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	a := startWrite(db, context.Background(), func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "a") }, 1)
	late := startWrite(db, slow, func(ctx context.Context, tx *Tx) error {
		// Runs past the deadline: its rows are written one by one.
		if _, err := tx.ExecContext(ctx, `WITH RECURSIVE "n"("i") AS (SELECT 1 UNION ALL SELECT "i" + 1 FROM "n" WHERE "i" < 100000)
			INSERT INTO "t" ("k") SELECT 'slow' || "i" FROM "n"`); err != nil {
			return err
		}
		<-ctx.Done() // whatever this machine's speed: the next statement starts past it
		return insertKey(ctx, tx, "late")
	}, 2)
	c := startWrite(db, context.Background(), func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "c") }, 3)
	close(release)
	if err := <-leader; err != nil {
		t.Fatalf("the leading write: %v", err)
	}
	if err := <-late; !errors.Is(err, engine.ErrBusy) {
		t.Errorf("the write past its deadline: %v; want engine.ErrBusy (it wrote nothing)", err)
	}
	for name, answer := range map[string]chan error{"a": a, "c": c} {
		if err := <-answer; err != nil {
			t.Errorf("write %s in the group: %v", name, err)
		}
	}
	expectStored(t, db, "a", "c", "lead")
}

// startWrite starts one Write on ctx once queued writes wait before it.
func startWrite(db *DB, ctx context.Context, fn func(ctx context.Context, tx *Tx) error, queued int) chan error {
	answer := make(chan error, 1)
	go func() { answer <- db.Write(ctx, fn) }()
	waitQueued(db, queued)
	return answer
}

// TestGroupedWriteSentAhead: rows a grouped write queued past
// sendAheadValues run on a goroutine of their own (ahead.go); a write that
// fails meanwhile, or whose rows sent ahead are refused, is rolled back to
// its savepoint only once they have run, so none of its rows stays and
// the group's other writes commit.
func TestGroupedWriteSentAhead(t *testing.T) {
	t.Parallel()
	db, release, leader := groupDB(t)
	refused := errors.New("refused")
	// queueKeys queues rows 64 at a time, as creates do: sent ahead, they
	// are one merged INSERT that runs in chunks, many statements.
	queueKeys := func(ctx context.Context, tx *Tx, prefix string) error {
		for i := range sendAheadValues / 64 {
			args := make([]any, 64)
			for j := range args {
				args[j] = fmt.Sprintf("%s%05d", prefix, 64*i+j)
			}
			if err := tx.ExecLaterRows(ctx, nil, `INSERT INTO "t" ("k") VALUES `, "(?)", len(args), args); err != nil {
				return err
			}
		}
		if tx.ahead == nil {
			t.Errorf("after %d values queued: nothing sent ahead", sendAheadValues)
		}
		return nil
	}
	answers := startWrites(t, db,
		func(ctx context.Context, tx *Tx) error {
			if err := queueKeys(ctx, tx, "failed"); err != nil {
				return err
			}
			return refused
		},
		func(ctx context.Context, tx *Tx) error {
			if err := insertKey(ctx, tx, "taken00000"); err != nil {
				return err
			}
			return queueKeys(ctx, tx, "taken") // its first key is taken: refused
		},
		func(ctx context.Context, tx *Tx) error { return insertKey(ctx, tx, "c") },
	)
	close(release)
	if err := <-leader; err != nil {
		t.Fatalf("the leading write: %v", err)
	}
	if err := <-answers[0]; !errors.Is(err, refused) {
		t.Errorf("the write that failed after sending ahead: %v; want its own error", err)
	}
	if err := <-answers[1]; err == nil {
		t.Errorf("the write whose rows sent ahead were refused: no error")
	}
	if err := <-answers[2]; err != nil {
		t.Errorf("write c: %v", err)
	}
	expectStored(t, db, "c", "lead")
}
