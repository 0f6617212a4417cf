package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/matryer/is"
)

func TestTuneCollector(t *testing.T) {
	is := is.New(t)
	gcPercent, memoryLimit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(gcPercent); debug.SetMemoryLimit(memoryLimit) })

	for _, env := range []map[string]string{{"GOGC": "100"}, {"GOMEMLIMIT": "1GiB"}} {
		tuneCollector(func(name string) string { return env[name] })
		is.Equal(debug.SetGCPercent(100), 100)                   // the operator's choice stands
		is.Equal(debug.SetMemoryLimit(-1), int64(math.MaxInt64)) // (-1 reads the limit)
	}

	tuneCollector(func(string) string { return "" })
	is.Equal(debug.SetGCPercent(100), defaultGCPercent)
	is.Equal(debug.SetMemoryLimit(-1), int64(defaultMemoryLimit))
}
