package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/demo"
	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// demoClientID is the client id of the demo key, here and in make run.
const demoClientID = "demo-cli"

// isMemory reports whether a DSN names the memory database.
func isMemory(dsn string) bool { return dsn == reference.MemoryDSN }

// loadDemo readies a memory engine for "serve --db memory: --demo": the
// demo companies, and a key for company demo, sign API, every scope,
// written to --key-file and returned for printDemo. A server for an
// integrator's tests: it starts in a moment, keeps nothing and runs every
// business rule.
func loadDemo(ctx context.Context, eng *reference.Engine, keyFile string) (string, error) {
	if err := demo.Load(ctx, eng); err != nil {
		return "", fmt.Errorf("load demo data: %w", err)
	}
	key, hash, err := runtime.NewKey(demoClientID)
	if err != nil {
		return "", err
	}
	err = eng.Keys().CreateKey(ctx, engine.Key{ClientID: demoClientID, Company: demoCompany, Sign: demoSign,
		Scopes: []string{"*"}, SecretHash: hash, Created: time.Now().UTC()})
	if err != nil {
		return "", fmt.Errorf("create the demo key: %w", err)
	}
	if keyFile != "" {
		if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("--key-file: %w", err)
		}
	}
	return key, nil
}

// printDemo prints the demo key and a first call, as make run does, once
// the server listens on addr.
func printDemo(w io.Writer, key string, addr net.Addr) {
	fmt.Fprintf(w, "Demo data in memory: nothing is kept when the server stops.\n\n")
	fmt.Fprintf(w, "Demo key (client id %s, company %s, sign %s, every scope):\n  %s\n\n", demoClientID, demoCompany, demoSign, key)
	fmt.Fprintf(w, "Try:\n  curl -s -H 'Authorization: Bearer %s' 'http://%s/v1/customers?limit=2'\n\n", key, addr)
	fmt.Fprintf(w, "API reference: http://%s/docs   (OpenAPI: http://%s/openapi.json)\n\n", addr, addr)
}
