package webhook

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The signature is the published library's, for one secret and for the
// two of a rotation.
func TestSignaturesVerifyWithTheStandardLibrary(t *testing.T) {
	is := is.New(t)
	secrets := []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_" + "c2Vjb25kLXNlY3JldC1vZi1hLXJvdGF0aW9u"}
	body := []byte(`{"id":"evt_1","type":"task.created"}`)
	now := time.Now()
	header, err := signatureHeader(secrets, "evt_1", now, body)
	is.NoErr(err)
	is.Equal(len(strings.Fields(header)), 2)
	h := http.Header{}
	h.Set("webhook-id", "evt_1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", header)
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		is.NoErr(err)
		is.NoErr(wh.Verify(body, h))
		want, err := wh.Sign("evt_1", now, body)
		is.NoErr(err)
		is.True(strings.Contains(header, want)) // byte for byte the library's signature
	}
	_, err = Sign("whsec_not base64!", "evt_1", now, body)
	is.True(err != nil)
}

func TestAddressPolicy(t *testing.T) {
	strict := AddressPolicy{}
	for addr, refused := range map[string]bool{
		"127.0.0.1": true, "::1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true,
		"169.254.169.254": true, "fe80::1": true, "fd00:ec2::254": true, "100.64.0.1": true,
		"0.0.0.0": true, "::": true, "224.0.0.1": true, "::ffff:127.0.0.1": true,
		"93.184.216.34": false, "2606:4700::1111": false, "8.8.8.8": false,
	} {
		err := strict.CheckIP(netip.MustParseAddr(addr))
		if (err != nil) != refused {
			t.Errorf("%s: refused %v, want %v (%v)", addr, err != nil, refused, err)
		}
		if err := (AddressPolicy{AllowPrivate: true}).CheckIP(netip.MustParseAddr(addr)); err != nil {
			t.Errorf("%s refused though private addresses are allowed: %v", addr, err)
		}
	}
	for raw, refused := range map[string]bool{
		"http://localhost:8080/x": true, "http://LOCALHOST./x": true, "http://a.localhost/": true,
		"http://[::1]:9/": true, "https://127.0.0.1/": true, "https://example.com/hook": false,
	} {
		u, _ := url.Parse(raw)
		if err := strict.CheckURL(u); (err != nil) != refused {
			t.Errorf("%s: refused %v, want %v", raw, err != nil, refused)
		}
	}
	// The dial hook sees the resolved address.
	if err := strict.control("tcp", "127.0.0.1:443", nil); err == nil {
		t.Error("the dial hook let 127.0.0.1 through")
	}
	if err := strict.control("tcp", "93.184.216.34:443", nil); err != nil {
		t.Errorf("the dial hook refused a public address: %v", err)
	}
}

// The schedule doubles from the base up to the cap, with jitter within
// ±20 %, and the defaults reach the give-up time after about 18 attempts.
func TestBackoff(t *testing.T) {
	is := is.New(t)
	w := NewWorker(nil, Options{})
	var total time.Duration
	attempts := 0
	for n := 1; total < w.opt.GiveUpAfter; n++ {
		d := w.backoff(n)
		nominal := min(w.opt.RetryBase<<(n-1), w.opt.MaxBackoff)
		is.True(d >= nominal*8/10 && d <= nominal*12/10)
		total += nominal
		attempts++
	}
	is.True(attempts >= 15 && attempts <= 20) // about three days of retries
}
