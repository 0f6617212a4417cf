package platform

import (
	"errors"
	"fmt"

	"fieldapi/engine"
)

// ErrClientIDTaken: CreateKey was given a client id another key has, or
// had (a revoked key keeps its id: ids are never reused).
var ErrClientIDTaken = errors.New("client id is already taken")

// KeyTaken is CreateKey's refusal of a client id in use.
func KeyTaken(clientID string) error {
	return fmt.Errorf("client id %q: %w", clientID, ErrClientIDTaken)
}

// UnknownKey is engine.ErrNoKey for a client id.
func UnknownKey(clientID string) error {
	return fmt.Errorf("client id %q: %w", clientID, engine.ErrNoKey)
}

// UnknownToken is engine.ErrNoKey for a token id.
func UnknownToken(id string) error { return fmt.Errorf("token %q: %w", id, engine.ErrNoKey) }
