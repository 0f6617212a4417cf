package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"fieldapi/runtime"
)

// Receiving constants: what a delivery may be, and how long a listener
// waits for the ones in flight when it stops.
const (
	maxDeliveryBody = 16 << 20        // a record with many lines is far smaller
	timestampSkew   = 5 * time.Minute // Standard Webhooks' tolerance for webhook-timestamp
	listenDrainWait = 5 * time.Second
	secretPrefix    = "whsec_"
)

// listen serves "fieldapi listen": receive webhook deliveries on this
// machine, as "stripe listen" does for Stripe's users, so a subscription
// can be tried without a public receiver. Each delivery's Standard
// Webhooks signature is checked with the subscription's secret: a valid
// one is printed and answered 204, any other is answered 401 and the
// reason printed.
func (a *app) listen(ctx context.Context, args []string) error {
	fs := newFlagSet("listen", "listen --secret whsec_... [--addr HOST:PORT] [--json]", a.stderr)
	addr := fs.String("addr", "127.0.0.1:9000", "HOST:PORT to receive deliveries on (port 0 picks a free port); subscribe http://HOST:PORT/")
	secret := fs.String("secret", "", "the subscription's signing secret, whsec_..., as POST /v1/webhooks answered it (required)")
	asJSON := fs.Bool("json", false, "print each event as one line of JSON and nothing else on stdout (for jq and scripts)")
	if err := parseFlags(fs, args, a.getenv); err != nil {
		return err
	}
	if err := requireFlags(flagValue{"secret", *secret}); err != nil {
		return fmt.Errorf("%w: the secret is in the answer to POST /v1/webhooks (or to POST /v1/webhooks/{id}/rotate-secret)", err)
	}
	verifier, err := newSignatureVerifier(*secret)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(a.stderr, "listening for webhook deliveries on %s (Ctrl-C stops)\n", url)
	fmt.Fprintf(a.stderr, "subscribe that URL (POST /v1/webhooks); fieldapi serve delivers to this machine only with --webhook-allow-private\n")
	if a.onListen != nil {
		a.onListen(ln.Addr())
	}
	rc := &receiver{verify: verifier, now: a.clock(), out: a.stdout, log: a.stderr, asJSON: *asJSON, seen: map[string]bool{}}
	srv := &http.Server{Handler: rc, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout, IdleTimeout: idleTimeout}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("listen: %w", err)
	case <-ctx.Done():
	}
	drainCtx, cancel := context.WithTimeout(context.Background(), listenDrainWait)
	defer cancel()
	if err := srv.Shutdown(drainCtx); err != nil {
		srv.Close()
	}
	<-served
	return nil
}

// signatureVerifier checks a delivery's signature headers over its body.
type signatureVerifier interface {
	VerifyIgnoringTimestamp(payload []byte, headers http.Header) error
}

// newSignatureVerifier checks the secret's form before anything is
// received, so a secret pasted wrong is named at once rather than as a
// 401 on every delivery.
func newSignatureVerifier(secret string) (signatureVerifier, error) {
	wrong := fmt.Errorf("--secret is not a signing secret: want %s and base64, as POST /v1/webhooks answers it", secretPrefix)
	if !strings.HasPrefix(secret, secretPrefix) {
		return nil, wrong
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return nil, wrong
	}
	return wh, nil
}

// receiver answers and prints deliveries. Deliveries may arrive at once
// (several attempts of a subscription run in parallel), so printing is
// serialised.
type receiver struct {
	verify signatureVerifier
	now    func() time.Time
	asJSON bool

	mu   sync.Mutex
	out  io.Writer       // events
	log  io.Writer       // refusals, and anything that is not an event
	seen map[string]bool // webhook-ids printed: delivery is at least once
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(status int, why string) {
		rc.mu.Lock()
		fmt.Fprintf(rc.log, "refused %s %s from %s: %d %s\n", r.Method, r.URL.Path, r.RemoteAddr, status, why)
		rc.mu.Unlock()
		http.Error(w, why, status)
	}
	if r.Method != http.MethodPost {
		w.Header().Set(runtime.HeaderAllow, http.MethodPost)
		refuse(http.StatusMethodNotAllowed, "a webhook delivery is a POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDeliveryBody+1))
	switch {
	case err != nil:
		refuse(http.StatusBadRequest, "reading the body: "+err.Error())
		return
	case len(body) > maxDeliveryBody:
		refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d MB", maxDeliveryBody>>20))
		return
	}
	if why := rc.check(body, r.Header); why != "" {
		refuse(http.StatusUnauthorized, why)
		return
	}
	rc.print(r.Header.Get(standardwebhooks.HeaderWebhookID), body)
	w.WriteHeader(http.StatusNoContent)
}

// check says why a delivery is not to be trusted, or "" when it is: the
// Standard Webhooks headers are there, a signature matches the secret,
// and the timestamp is recent (an old message may be a replay).
func (rc *receiver) check(body []byte, h http.Header) string {
	var missing []string
	for _, name := range []string{standardwebhooks.HeaderWebhookID, standardwebhooks.HeaderWebhookTimestamp, standardwebhooks.HeaderWebhookSignature} {
		if h.Get(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return "no " + strings.Join(missing, ", ") + " header: not a signed webhook delivery"
	}
	unix, err := strconv.ParseInt(h.Get(standardwebhooks.HeaderWebhookTimestamp), 10, 64)
	if err != nil {
		return fmt.Sprintf("webhook-timestamp %q is not a time in Unix seconds", h.Get(standardwebhooks.HeaderWebhookTimestamp))
	}
	if err := rc.verify.VerifyIgnoringTimestamp(body, h); err != nil {
		if errors.Is(err, standardwebhooks.ErrNoMatchingSignature) {
			return "the signature does not match --secret: the body or a header was changed on the way, " +
				"or the message was signed with another secret (another subscription's, or one rotated since)"
		}
		return "bad signature headers: " + err.Error()
	}
	switch age := rc.now().Sub(time.Unix(unix, 0)); {
	case age > timestampSkew:
		return fmt.Sprintf("webhook-timestamp is %s old, over the %s accepted: a replayed or long-delayed message", age.Round(time.Second), timestampSkew)
	case -age > timestampSkew:
		return fmt.Sprintf("webhook-timestamp is %s ahead of this machine's clock, over the %s accepted", (-age).Round(time.Second), timestampSkew)
	}
	return ""
}

// eventSummary is what the line above a printed event shows. Events carry
// most of it; a webhook.ping carries the subscription's id instead.
type eventSummary struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Company   string `json:"company"`
	Register  string `json:"register"`
	Key       string `json:"key"`
	Position  int64  `json:"position"`
	WebhookID string `json:"webhookId"`
	Actor     struct {
		ClientID string `json:"clientId"`
		Sign     string `json:"sign"`
	} `json:"actor"`
}

// print writes one verified delivery: with --json its body on one line,
// otherwise a summary line and the body indented.
func (rc *receiver) print(messageID string, body []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	repeat := rc.seen[messageID]
	rc.seen[messageID] = true
	var compact, indented bytes.Buffer
	if json.Compact(&compact, body) != nil {
		// Signed, so sent as it is by whoever holds the secret; but no JSON.
		fmt.Fprintf(rc.log, "delivery %s is signed but not JSON: %q\n", messageID, body)
		return
	}
	if rc.asJSON {
		fmt.Fprintln(rc.out, compact.String())
		return
	}
	var e eventSummary
	_ = json.Unmarshal(body, &e) // fields missing from the body are left out of the summary
	parts := []string{rc.now().Format("15:04:05"), orDash(e.Type), orDash(e.ID)}
	if e.Register != "" {
		parts = append(parts, e.Register+"/"+e.Key)
	}
	if e.Company != "" {
		parts = append(parts, "company="+e.Company)
	}
	if e.Position > 0 {
		parts = append(parts, "position="+strconv.FormatInt(e.Position, 10))
	}
	if e.Actor.ClientID != "" {
		parts = append(parts, "by="+e.Actor.ClientID+"/"+e.Actor.Sign)
	}
	if e.WebhookID != "" {
		parts = append(parts, "webhook="+e.WebhookID)
	}
	if repeat {
		parts = append(parts, "(again: a delivery is sent at least once; drop repeats by webhook-id)")
	}
	_ = json.Indent(&indented, compact.Bytes(), "", "  ")
	fmt.Fprintf(rc.out, "%s\n%s\n", strings.Join(parts, " "), indented.String())
}
