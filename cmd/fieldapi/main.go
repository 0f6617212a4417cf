// Command fieldapi runs the field-service REST/JSON API and administers it:
//
//	fieldapi init  --db DSN [--demo]
//	fieldapi serve --db DSN --addr HOST:PORT [--require-tokens]
//	fieldapi migrate --db DSN [--plan] [--drop-register NAME]...
//	fieldapi seed  --db DSN [--company ID] [--tasks N]
//	fieldapi keys create --db DSN --company ID --sign SIGN --scopes LIST [--client-id ID] [--allow-ip CIDR]... [--json]
//	fieldapi keys list   --db DSN [--company ID] [--json]
//	fieldapi keys revoke --db DSN --client-id ID
//	fieldapi listen --secret whsec_... [--addr HOST:PORT] [--json]
//	fieldapi version
//
// Every flag may also be given as a FIELDAPI_<FLAG> environment variable
// (FIELDAPI_DB, FIELDAPI_ADDR, FIELDAPI_REQUIRE_TOKENS, ...); a flag wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"fieldapi/catalog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal starts a graceful shutdown, a second one
		// gets the default behaviour and ends the process at once.
		<-ctx.Done()
		stop()
	}()
	a := &app{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, tuneGC: tuneGC}
	os.Exit(a.run(ctx, os.Args[1:]))
}

// app is one invocation of the CLI. Its outputs and environment are fields
// so tests can run every subcommand in-process.
type app struct {
	stdout, stderr  io.Writer
	getenv          func(string) string
	onListen        func(net.Addr)   // called once serve listens; tests learn the port from it
	onMetricsListen func(net.Addr)   // the same for the --metrics-addr listener
	catalog         *catalog.Catalog // the catalog of init, serve and migrate; nil: the builtin one (tests give an edited copy)
	now             func() time.Time // listen's clock; nil: time.Now
	// tuneGC sets the garbage collector's heap goal (gc.go) for serve. It
	// is the process's: nil leaves Go's defaults (tests serve in process).
	tuneGC func(goal uint64)
}

// clock is the app's clock.
func (a *app) clock() func() time.Time {
	if a.now == nil {
		return time.Now
	}
	return a.now
}

const usage = `fieldapi serves the field-service REST/JSON API and administers its keys.

usage:
  fieldapi init  --db DSN [--demo]
  fieldapi serve --db DSN --addr HOST:PORT [--require-tokens] [tuning flags]
  fieldapi migrate --db DSN [--plan] [--drop-register NAME]...   (upgrade the schema as init and serve do; --plan shows it first)
  fieldapi seed  --db DSN [--company ID] [--tasks N]   (bulk data for load tests)
  fieldapi keys create --db DSN --company ID --sign SIGN --scopes LIST [--client-id ID] [--allow-ip CIDR]... [--json]
  fieldapi keys list   --db DSN [--company ID] [--json]
  fieldapi keys revoke --db DSN --client-id ID
  fieldapi listen --secret whsec_... [--addr HOST:PORT] [--json]   (receive webhooks on this machine)
  fieldapi version

DSN is sqlite:PATH (default sqlite:fieldapi.db) or postgres://USER@HOST:PORT/DB.
Every flag may also be set as FIELDAPI_<FLAG> (FIELDAPI_DB, FIELDAPI_ADDR, ...); a flag wins.
Run "fieldapi <command> -h" for the flags of a command.
`

const keysUsage = `usage:
  fieldapi keys create --db DSN --company ID --sign SIGN --scopes LIST [--client-id ID] [--allow-ip CIDR]... [--json]
  fieldapi keys list   --db DSN [--company ID] [--json]
  fieldapi keys revoke --db DSN --client-id ID

Run "fieldapi keys <subcommand> -h" for its flags.
`

// Exit codes: 0 success, 1 failure, 2 the command line could not be parsed.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run dispatches to a subcommand and turns its error into an exit code and
// a message on stderr.
func (a *app) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, usage)
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "init":
		err = a.initDB(ctx, rest)
	case "serve":
		err = a.serve(ctx, rest)
	case "migrate":
		err = a.migrate(ctx, rest)
	case "keys":
		err = a.keys(ctx, rest)
	case "seed":
		err = a.seed(ctx, rest)
	case "listen":
		err = a.listen(ctx, rest)
	case "version":
		err = a.version(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, usage)
		return exitOK
	default:
		err = usageError{fmt.Errorf("unknown command %q", cmd)}
	}
	return a.exitCode(args, err)
}

// keys dispatches the keys subcommands.
func (a *app) keys(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError{errors.New("keys needs a subcommand: create, list or revoke")}
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, keysUsage)
		return nil
	case "create":
		return a.keysCreate(ctx, rest)
	case "list":
		return a.keysList(ctx, rest)
	case "revoke":
		return a.keysRevoke(ctx, rest)
	default:
		return usageError{fmt.Errorf("unknown keys subcommand %q (want create, list or revoke)", sub)}
	}
}

// exitCode reports err on stderr and picks the exit code for it.
func (a *app) exitCode(args []string, err error) int {
	var usageErr usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK // the flag set has printed its usage
	case errors.Is(err, errFlagsRejected):
		return exitUsage // the flag set has printed the error and its usage
	case errors.As(err, &usageErr):
		fmt.Fprintf(a.stderr, "fieldapi: %v\n\n%s", err, usage)
		return exitUsage
	}
	fmt.Fprintf(a.stderr, "fieldapi %s: %v\n", commandName(args), err)
	return exitError
}

// commandName is the subcommand named in args, such as "keys create".
func commandName(args []string) string {
	if len(args) > 1 && args[0] == "keys" {
		return "keys " + args[1]
	}
	return args[0]
}

// usageError is a command line that names no known command.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
