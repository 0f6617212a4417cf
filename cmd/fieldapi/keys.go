package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/pipeline"
	"fieldapi/engine/reference"
	"fieldapi/runtime"
)

// keysCreate serves "fieldapi keys create": make a key, store its hash and
// print the key once.
func (a *app) keysCreate(ctx context.Context, args []string) error {
	fs := newFlagSet("keys create",
		"keys create --db DSN --company ID --sign SIGN --scopes LIST [--client-id ID] [--allow-ip CIDR]... [--json]", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	company := fs.String("company", "", "company the key is tied to (required)")
	sign := fs.String("sign", "", "engine signature (user sign) the key acts as, such as API in the demo companies; its permissions apply (required)")
	scopeList := fs.String("scopes", "", `"*" for every scope, or a comma separated list such as customers:read,customers:write (required; the scopes are listed below)`)
	clientID := fs.String("client-id", "", "client id; default <company>-<6 random characters>")
	var allowIPs listFlag
	fs.Var(&allowIPs, "allow-ip", "CIDR range the key may be used from, such as 203.0.113.0/24; repeat for more (default: anywhere)")
	asJSON := fs.Bool("json", false, `print only {"clientId":"...","key":"mk_..."}`)
	known := apiScopes()
	flagUsage := fs.Usage
	fs.Usage = func() {
		flagUsage()
		fmt.Fprint(fs.Output(), known.help())
	}
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	if err := requireFlags(flagValue{"company", *company}, flagValue{"sign", *sign}, flagValue{"scopes", *scopeList}); err != nil {
		return err
	}
	scopes, err := known.parse(*scopeList)
	if err != nil {
		return err
	}
	ranges, err := parseCIDRs(allowIPs)
	if err != nil {
		return err
	}
	if *clientID == "" {
		*clientID = defaultClientID(*company)
	}
	keyText, secretHash, err := runtime.NewKey(*clientID)
	if err != nil {
		return err
	}

	eng, err := openEngine(ctx, *dsn, reference.Options{}, existing)
	if err != nil {
		return err
	}
	defer eng.Close()
	if err := requireCompany(ctx, eng, *dsn, *company); err != nil {
		return err
	}
	err = eng.Keys().CreateKey(ctx, engine.Key{
		ClientID:   *clientID,
		Company:    *company,
		Sign:       *sign,
		Scopes:     scopes,
		AllowedIPs: ranges,
		SecretHash: secretHash,
		Created:    time.Now().UTC(),
	})
	if err != nil {
		return err
	}
	for _, warning := range known.uselessScopeWarnings(scopes) {
		fmt.Fprintf(a.stderr, "fieldapi keys create: warning: %s\n", warning)
	}
	if *asJSON {
		return json.NewEncoder(a.stdout).Encode(struct {
			ClientID string `json:"clientId"`
			Key      string `json:"key"`
		}{*clientID, keyText})
	}
	printNewKey(a.stdout, *clientID, *company, *sign, scopes, ranges, keyText)
	return nil
}

// printNewKey shows a new key to the operator, the only time it can be seen.
func printNewKey(w io.Writer, clientID, company, sign string, scopes, ranges []string, keyText string) {
	fmt.Fprintf(w, "created key %s for company %s, sign %s\n", clientID, company, sign)
	fmt.Fprintf(w, "scopes:      %s\n", strings.Join(scopes, ","))
	fmt.Fprintf(w, "allowed IPs: %s\n\n", orDash(strings.Join(ranges, ",")))
	fmt.Fprintf(w, "clientId: %s\nkey:      %s\n\n", clientID, keyText)
	fmt.Fprintln(w, "Store the key now: it is shown only this once and cannot be read again.")
}

// parseCIDRs checks allowed IP ranges and writes each in its canonical form
// (203.0.113.7/24 becomes 203.0.113.0/24).
func parseCIDRs(values []string) ([]string, error) {
	var ranges []string
	for _, v := range values {
		prefix, err := netip.ParsePrefix(v)
		if err != nil {
			return nil, fmt.Errorf("--allow-ip %q is not a CIDR range such as 203.0.113.0/24 (one address: 203.0.113.7/32)", v)
		}
		ranges = append(ranges, prefix.Masked().String())
	}
	return ranges, nil
}

// defaultClientID is <company>-<6 random characters>, shaped to pass
// runtime.ValidClientID whatever the company id looks like.
func defaultClientID(company string) string {
	const maxPrefix = 63 - len("-xxxxxx")
	prefix := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return '-'
	}, company)
	prefix = strings.Trim(prefix[:min(len(prefix), maxPrefix)], "-")
	if prefix == "" {
		prefix = "key"
	}
	return prefix + "-" + strings.ToLower(rand.Text()[:6])
}

// keysList serves "fieldapi keys list": every key, never a secret.
func (a *app) keysList(ctx context.Context, args []string) error {
	fs := newFlagSet("keys list", "keys list --db DSN [--company ID] [--json]", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	company := fs.String("company", "", "list only the keys of this company")
	asJSON := fs.Bool("json", false, "print a JSON array of the keys (never a secret) instead of a table")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	eng, err := openEngine(ctx, *dsn, reference.Options{}, existing)
	if err != nil {
		return err
	}
	defer eng.Close()
	if *company != "" {
		// Without this, a mistyped company would list nothing, as if it
		// had no keys.
		if err := requireCompany(ctx, eng, *dsn, *company); err != nil {
			return err
		}
	}
	keys, err := eng.Keys().ListKeys(ctx, *company)
	if err != nil {
		return err
	}
	if *asJSON {
		return printKeysJSON(a.stdout, keys)
	}
	if err := printKeys(a.stdout, keys); err != nil {
		return err
	}
	if len(keys) == 0 {
		// On stderr: scripts read the table on stdout.
		if *company != "" {
			fmt.Fprintf(a.stderr, "company %s has no keys\n", *company)
		} else {
			fmt.Fprintln(a.stderr, "there are no keys")
		}
	}
	return nil
}

// requireCompany refuses a company the database does not hold, naming the
// companies it does.
func requireCompany(ctx context.Context, eng companyDirectory, dsn, companyID string) error {
	companies, err := eng.Companies(ctx)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(companies, func(c pipeline.Company) bool { return c.ID == companyID }) {
		return nil
	}
	if len(companies) == 0 {
		return fmt.Errorf("unknown company %q: the database holds no company yet; \"fieldapi init --db %s --demo\" loads the demo companies",
			companyID, shellQuote(redactDSN(dsn)))
	}
	return fmt.Errorf("unknown company %q; the database holds %s", companyID, describeCompanies(companies))
}

// describeCompanies names companies for a message: "company demo
// (Nordisk Fastighetsservice AB)" or "companies demo (...) and demo2 (...)".
func describeCompanies(companies []pipeline.Company) string {
	const listed = 10 // more would bury the message
	var names []string
	for i, c := range companies {
		if i == listed {
			names = append(names, fmt.Sprintf("%d more", len(companies)-listed))
			break
		}
		names = append(names, fmt.Sprintf("%s (%s)", c.ID, c.Name))
	}
	if len(names) == 1 {
		return "company " + names[0]
	}
	return "companies " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// listedKey is one key as "keys list --json" prints it.
type listedKey struct {
	ClientID   string     `json:"clientId"`
	Company    string     `json:"company"`
	Sign       string     `json:"sign"`
	Scopes     []string   `json:"scopes"`
	AllowedIPs []string   `json:"allowedIps"`
	Created    time.Time  `json:"created"`
	Revoked    *time.Time `json:"revoked"`
}

// printKeysJSON writes the keys as one JSON array; empty lists are [].
func printKeysJSON(w io.Writer, keys []engine.Key) error {
	out := make([]listedKey, len(keys))
	for i, k := range keys {
		out[i] = listedKey{ClientID: k.ClientID, Company: k.Company, Sign: k.Sign,
			Scopes: append([]string{}, k.Scopes...), AllowedIPs: append([]string{}, k.AllowedIPs...),
			Created: k.Created.UTC(), Revoked: k.Revoked}
		if k.Revoked != nil {
			revoked := k.Revoked.UTC()
			out[i].Revoked = &revoked
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printKeys writes one line per key, whitespace separated so scripts can
// read it; "-" stands for an empty cell.
func printKeys(w io.Writer, keys []engine.Key) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLIENT ID\tCOMPANY\tSIGN\tSCOPES\tALLOWED IPS\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if k.Revoked != nil {
			revoked = formatTime(*k.Revoked)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ClientID, k.Company, k.Sign,
			strings.Join(k.Scopes, ","), orDash(strings.Join(k.AllowedIPs, ",")), formatTime(k.Created), revoked)
	}
	return tw.Flush()
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// keysRevoke serves "fieldapi keys revoke": the key and its tokens stop
// working at once (servers trust a verified key for a few seconds at most).
func (a *app) keysRevoke(ctx context.Context, args []string) error {
	fs := newFlagSet("keys revoke", "keys revoke --db DSN --client-id ID", a.stderr)
	dsn := fs.String("db", defaultDSN, "database: sqlite:PATH or postgres://USER@HOST:PORT/DB")
	clientID := fs.String("client-id", "", "client id of the key to revoke (required)")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	if err := requireFlags(flagValue{"client-id", *clientID}); err != nil {
		return err
	}
	eng, err := openEngine(ctx, *dsn, reference.Options{}, existing)
	if err != nil {
		return err
	}
	defer eng.Close()
	key, err := eng.Keys().LookupKey(ctx, *clientID)
	if errors.Is(err, engine.ErrNoKey) {
		return fmt.Errorf("no key with client id %q", *clientID)
	}
	if err != nil {
		return err
	}
	if key.Revoked != nil {
		fmt.Fprintf(a.stdout, "key %s was already revoked at %s\n", *clientID, formatTime(*key.Revoked))
		return nil
	}
	if err := eng.Keys().RevokeKey(ctx, *clientID); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "revoked key %s and its tokens\n", *clientID)
	return nil
}
