package main

import "github.com/bytedance/gopkg/util/gctuner"

// The garbage collector's pace. Between calls fieldapi holds little (a few
// MiB), and Go collects each time its heap doubles: an atomic batch of 100
// task creates allocates 7 MiB and ran two collections, with their mark
// assists, for about a third of its CPU (pprof). With a heap goal, GOGC
// rises while the live heap is small (up to 500), so the heap grows
// towards the goal between collections; from half the goal up GOGC is
// Go's 100, so under load the heap, and the peak RSS, stay where Go's
// defaults put them (make bench: a peak of 109 MB against 108).
//
// gctuner sets GOGC after each collection from the heap in use; its
// settings are the process's, so main sets them, once.

// gcMinPercent and gcMaxPercent bound the GOGC the heap goal sets.
const (
	gcMinPercent = 100 // Go's default: never collect sooner than it would
	gcMaxPercent = 500
)

// tuneGC sets the garbage collector's heap goal, in bytes.
func tuneGC(goal uint64) {
	gctuner.SetMinGCPercent(gcMinPercent)
	gctuner.SetMaxGCPercent(gcMaxPercent)
	gctuner.Tuning(goal)
}
