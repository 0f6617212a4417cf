package engine

import "context"

// Atomic is an optional capability: a sequence of writes that commit
// together or not at all (POST /v1/batch with "atomic": true).
type Atomic interface {
	// Atomically runs fn with a context in which every write the engine
	// makes for the session (Create, Update, the Commands, and the writes
	// of the Locations and Documents capabilities) joins one transaction,
	// with their change-log rows, events and receipts. When fn returns
	// nil, the response it returns is stored under claim (when the claim
	// has a Key) in that same transaction, which then commits; when fn
	// fails, or the claim is lost (ErrClaimLost), everything fn's writes
	// did is rolled back and the error returned. The writes inside fn run
	// one after the other, never at once, and read what the earlier ones
	// wrote.
	Atomically(ctx context.Context, s Session, claim Claim, fn func(ctx context.Context) (Response, error)) (Response, error)
}
