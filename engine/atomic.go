package engine

import "context"

// Atomic is an optional capability: a sequence of writes that commit
// together or not at all (POST /v1/batch with "atomic": true).
type Atomic interface {
	// Atomically runs fn with a context in which every write the engine
	// makes for the session (Create, Update, Commands, Locations and
	// Documents) joins one transaction, with its change log, events and
	// receipts. When fn returns nil, its response is stored under claim
	// (if it has a Key) in that transaction, which commits; when fn fails
	// or the claim is lost (ErrClaimLost), all is rolled back. The writes
	// run one after the other and read what the earlier ones wrote.
	Atomically(ctx context.Context, s Session, claim Claim, fn func(ctx context.Context) (Response, error)) (Response, error)

	// ReadAhead, inside Atomically, reads in one query per register the
	// records the planned writes' reference fields name, so each write
	// finds them read. Only a hint: other writes read as ever, and a
	// record the batch changes is read again by the writes after it.
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
