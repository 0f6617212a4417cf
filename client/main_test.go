package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fieldapi/apitest"
	"fieldapi/catalog"
	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/generated"
	"fieldapi/runtime"
)

// The installation the examples call: the real server on SQLite with the
// demo data, started once by TestMain (examples get no *testing.T).
var (
	serverURL string // http://127.0.0.1:port
	demoKey   string // company demo, signature API, every scope
)

func TestMain(m *testing.M) {
	stop, err := startExampleServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, "example server:", err)
		os.Exit(1)
	}
	code := apitest.RunWithTemplates(m)
	stop()
	os.Exit(code)
}

func startExampleServer() (stop func(), err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "fieldapi-client-examples-")
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Builtin()
	if err != nil {
		return nil, err
	}
	eng, err := reference.Open(ctx, "sqlite:"+filepath.Join(dir, "examples.db"), cat, reference.Options{})
	if err != nil {
		return nil, err
	}
	if err := eng.Migrate(ctx); err != nil {
		return nil, err
	}
	if err := demo.Load(ctx, eng); err != nil {
		return nil, err
	}
	key, hash, err := runtime.NewKey("demo-examples")
	if err != nil {
		return nil, err
	}
	err = eng.Keys().CreateKey(ctx, engine.Key{ClientID: "demo-examples", Company: "demo", Sign: "API", Scopes: []string{"*"}, SecretHash: hash, Created: time.Now()})
	if err != nil {
		return nil, err
	}
	hs := httptest.NewServer(runtime.NewServer(eng, runtime.Config{RateLimit: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, generated.API()))
	serverURL, demoKey = hs.URL, key
	return func() {
		hs.Close()
		eng.Close()
		os.RemoveAll(dir)
	}, nil
}
