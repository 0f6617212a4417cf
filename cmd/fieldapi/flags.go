package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// defaultDSN is the database every command uses when --db is not given.
const defaultDSN = "sqlite:fieldapi.db"

// envPrefix names the environment variable of a flag: --require-tokens is
// read from FIELDAPI_REQUIRE_TOKENS.
const envPrefix = "FIELDAPI_"

// errFlagsRejected: the flag package refused the command line and has
// already printed why, with the command's usage.
var errFlagsRejected = errors.New("invalid command line")

// envName is the environment variable a flag is read from.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// newFlagSet returns the flag set of one subcommand. It reports errors
// instead of exiting, so subcommands can run inside tests.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: fieldapi %s\n", synopsis)
		example := "" // a flag of this command, to show its variable
		fs.VisitAll(func(f *flag.Flag) {
			if example == "" || f.Name == "db" {
				example = f.Name
			}
		})
		if example != "" {
			fmt.Fprintf(fs.Output(), "\nEach flag may also be set as %s<FLAG> (for example %s); a flag wins.\n\n",
				envPrefix, envName(example))
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses a subcommand's arguments, then sets every flag that was
// not given from its FIELDAPI_<FLAG> environment variable, so a flag always
// wins over the environment.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errFlagsRejected
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags start with --)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] {
			return
		}
		name := envName(f.Name)
		if value := getenv(name); value != "" {
			if err := fs.Set(f.Name, value); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %v", name, value, err))
			}
		}
	})
	return errors.Join(errs...)
}

// flagValue is a flag's name with the value it ended up with.
type flagValue struct{ name, value string }

// requireFlags fails naming the first required flag that has no value.
func requireFlags(flags ...flagValue) error {
	for _, f := range flags {
		if strings.TrimSpace(f.value) == "" {
			return fmt.Errorf("--%s is required (or set %s)", f.name, envName(f.name))
		}
	}
	return nil
}

// listFlag is a flag that may be repeated; each value may also be a comma
// separated list, which is how the environment variable carries several.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(value string) error {
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// countFlag is a count whose default is worked out from other flags when
// it is not given. Unset, it shows no default of its own in the help
// (flag would print "(default -1)" beside the usage's own explanation).
type countFlag struct {
	n   int
	set bool
}

func (c *countFlag) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.Itoa(c.n)
}

func (c *countFlag) Set(value string) error {
	n, err := strconv.Atoi(value)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < 0 {
		return errors.New("must not be negative")
	}
	c.n, c.set = n, true
	return nil
}

// or is the count given, or fallback when none was.
func (c countFlag) or(fallback int) int {
	if !c.set {
		return fallback
	}
	return c.n
}
