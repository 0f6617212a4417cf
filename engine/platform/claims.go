package platform

import "fieldapi/engine"

// Judge says what claim c finds in a key whose response is stored with
// the given fingerprint.
func Judge(c engine.Claim, fingerprint string, stored engine.Response) engine.ClaimResult {
	if fingerprint != c.Fingerprint {
		return engine.ClaimResult{State: engine.Mismatch}
	}
	return engine.ClaimResult{State: engine.Replay, Response: stored}
}
