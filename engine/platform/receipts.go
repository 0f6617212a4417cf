package platform

import (
	"encoding/json"

	"fieldapi/engine"
)

// RenderReceipt renders the answer of a webhook write from the value it
// answers with (the Webhook, the Delivery): Render gets the value's JSON
// object as its record, as it gets a register's record. settle reports
// whether the answer must be stored with the claim in the write's
// transaction: a write without a Render or without an Idempotency-Key
// stores nothing.
func RenderReceipt(r engine.Receipt, v any) (resp engine.Response, settle bool, err error) {
	if r.Render == nil {
		return engine.Response{}, false, nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return engine.Response{}, false, err
	}
	var rec engine.Record
	if err := json.Unmarshal(body, &rec); err != nil {
		return engine.Response{}, false, err
	}
	if resp, err = r.Render(rec); err != nil {
		return engine.Response{}, false, err
	}
	return resp, r.Claim.Key != "", nil
}
