package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"

	"fieldapi/catalog"
	"fieldapi/engine/reference"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// Profiling (--profile DIR): the same calls against fieldapi built into
// this process, with a CPU profile of each call's measured run written to
// DIR/<call>.pprof (read with "go tool pprof -top DIR/list-first.pprof").
// The baseline is not run: a profile is about where fieldapi spends.

// inProcessServer serves fieldapi as "fieldapi serve --rate-limit 0" does,
// on a free port of 127.0.0.1.
func inProcessServer(ctx context.Context, dsn string) (url string, stop func(), err error) {
	cat, err := catalog.Builtin()
	if err != nil {
		return "", nil, err
	}
	eng, err := reference.Open(ctx, dsn, cat, reference.Options{})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		return "", nil, err
	}
	srv := &http.Server{Handler: runtime.NewServer(eng, runtime.Config{RateLimit: -1}, generated.API())}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close(); eng.Close() }, nil
}

// profiled runs fn with the CPU profiler writing to dir/name.pprof.
func profiled(dir, name string, fn func()) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, name+".pprof"))
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	fn()
	pprof.StopCPUProfile()
	fmt.Printf("profile: %s\n", f.Name())
	return nil
}
