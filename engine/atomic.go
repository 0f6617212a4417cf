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

	// ReadAhead, inside Atomically, reads in one go what the planned
	// writes will read of other records (those their reference fields
	// name), one query per register, so each write finds them read
	// rather than asking the store itself. It is only a hint: a write it
	// was not told of reads what it needs as ever, and a record a write
	// of the batch changes is read again by the writes after it.
	ReadAhead(ctx context.Context, s Session, writes []PlannedWrite) error
}

// PlannedWrite is a write an atomic batch will make, as known before it
// runs (Atomic.ReadAhead).
type PlannedWrite struct {
	Register string
	Input    Input
	Create   bool // a create (whose defaults may name records too), else an update
}

// likeWritesKey carries the hint of WithLikeWrites.
type likeWritesKey struct{}

// WithLikeWrites tells the engine, inside Atomically, that the write made
// with ctx is the first of n like it (the same method on the same path of
// one batch, this one included). It is only a hint: a create of a register
// with a number series takes the numbers of all n at once, and gives back
// what they do not use where its store can (SQLite, memory).
func WithLikeWrites(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, likeWritesKey{}, n)
}

// LikeWrites is the hint of WithLikeWrites: at least 1.
func LikeWrites(ctx context.Context) int {
	n, _ := ctx.Value(likeWritesKey{}).(int)
	return max(n, 1)
}
