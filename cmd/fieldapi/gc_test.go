package main

import (
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/bytedance/gopkg/util/gctuner"
	"github.com/matryer/is"
)

// TestHeapGoalFlag: serve sets a heap goal of 64 MiB unless told
// otherwise, none with --heap-goal-mib 0, and none when the operator's
// GOGC or GOMEMLIMIT is set, which serve says in its log.
func TestHeapGoalFlag(t *testing.T) {
	is := is.New(t)
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	cfg, err := parseServeConfig(nil, env(nil), io.Discard)
	is.NoErr(err)
	is.Equal(cfg.heapGoal, uint64(64<<20))
	cfg, err = parseServeConfig([]string{"--heap-goal-mib", "256"}, env(nil), io.Discard)
	is.NoErr(err)
	is.Equal(cfg.heapGoal, uint64(256<<20))
	cfg, err = parseServeConfig(nil, env(map[string]string{"FIELDAPI_HEAP_GOAL_MIB": "0"}), io.Discard)
	is.NoErr(err)
	is.Equal(cfg.heapGoal, uint64(0))
	for _, variable := range []string{"GOGC", "GOMEMLIMIT"} {
		cfg, err = parseServeConfig(nil, env(map[string]string{variable: "200"}), io.Discard)
		is.NoErr(err)
		is.True(cfg.gcByEnv)
		is.Equal(cfg.heapGoal, uint64(0)) // the operator's setting wins
	}
	_, err = parseServeConfig([]string{"--heap-goal-mib", "-1"}, env(nil), io.Discard)
	is.True(err != nil && strings.Contains(err.Error(), "--heap-goal-mib"))

	// serve hands the goal to the process's tuner.
	var set []uint64
	srv := startServeApp(t, &app{tuneGC: func(goal uint64) { set = append(set, goal) }}, "memory:", "--demo", "--heap-goal-mib", "32")
	srv.stop()
	is.Equal(set, []uint64{32 << 20})
}

// TestTuneGCRaisesGOGCWhileTheHeapIsSmall: with a goal far above this
// test's heap, the tuner sets GOGC to its ceiling after a collection;
// with a goal below it, to Go's default. The settings are the process's:
// the test puts Go's back.
func TestTuneGCRaisesGOGCWhileTheHeapIsSmall(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer gctuner.Tuning(0)
	percentAfterCollections := func() uint32 {
		// The tuner runs in a finalizer after each collection.
		for range 100 {
			runtime.GC()
			runtime.Gosched()
		}
		return gctuner.GetGCPercent()
	}
	tuneGC(1 << 40)
	if got := percentAfterCollections(); got != gcMaxPercent {
		t.Errorf("GOGC with a heap goal of 1 TiB: %d, want %d", got, gcMaxPercent)
	}
	tuneGC(1 << 10)
	if got := percentAfterCollections(); got != gcMinPercent {
		t.Errorf("GOGC with a heap goal of 1 KiB: %d, want %d", got, gcMinPercent)
	}
}
