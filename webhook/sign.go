// Package webhook delivers the engine's queued webhook messages: it signs
// them as the Standard Webhooks specification says (webhook-id,
// webhook-timestamp, webhook-signature), sends them over an HTTP client
// that refuses private addresses and redirects, and records each attempt
// with its retry schedule. Every serve process runs a Worker; the queue in
// the database (engine.DeliveryQueue) shares the work between them.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// secretPrefix starts every signing secret; the rest is the key in base64.
const secretPrefix = "whsec_"

// Sign returns the Standard Webhooks signature of one message:
// "v1," and the base64 HMAC-SHA256, keyed with the secret's bytes, of
// "<msgID>.<unix seconds>.<body>".
func Sign(secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return "", fmt.Errorf("webhook secret is not %s<base64>: %w", secretPrefix, err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msgID + "." + strconv.FormatInt(ts.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// signatureHeader is the webhook-signature value: one signature per
// secret, space separated, so a receiver holding either the new or the
// previous secret of a rotation verifies the message.
func signatureHeader(secrets []string, msgID string, ts time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		sig, err := Sign(s, msgID, ts, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}
