package client

import "net/url"

// ReadOption shapes the answer of a Get (fields=, expand=); a List takes
// the same as its parameters' Fields and Expand.
type ReadOption func(url.Values)

// WithFields answers with only the fields named (as read, such as Nr,
// Customer.Name for a field of an expansion, or Materials.ProductNr for a
// field of a line list's lines, each line keeping its key); the key
// always comes.
func WithFields(names ...string) ReadOption {
	return func(q url.Values) { setList(q, "fields", names) }
}

// WithExpand answers each record with the related records named, each as
// its own Get reads it: a register's expansions are its typed constants,
// such as TaskExpandCustomer.
func WithExpand[E ~string](names ...E) ReadOption {
	return func(q url.Values) { setExpand(q, names) }
}

// setExpand sends the expansions named, comma-separated.
func setExpand[E ~string](q url.Values, names []E) {
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = string(n)
	}
	setList(q, "expand", list)
}
