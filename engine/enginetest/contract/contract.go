// Package contract is the part of engine/enginetest that every
// engine.Engine must pass, whatever it offers beyond the port: lists
// (newest first, page and cursor paging, modified ranges, every condition
// operator), writes (reads and not-found, creates with lines all or
// nothing, updates of only the fields sent, receipts committed with the
// write, versions), idempotency claims, company isolation, the error
// kinds and the key store. Each group is a []kit.Test that enginetest.Run
// runs under its name.
package contract

import (
	"fieldapi/engine/enginetest/kit"
)

// suite is one subtest's engine, with this package's helpers.
type suite struct{ *kit.Suite }

// test makes a test of this package, written on its suite, a kit.Test.
var test = kit.With(func(s *kit.Suite) *suite { return &suite{s} })
