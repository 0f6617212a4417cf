package apitest

import (
	"encoding/base64"
	"encoding/json"
	"testing"
)

// forgeCursorKeys rewrites the sort values of a cursor, as a client
// tampering with it would.
func forgeCursorKeys(t *testing.T, cursor string, keys []any) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	c["k"] = keys
	b, _ = json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}
