// Package scaletest runs the built fieldapi binary as separate processes on
// one PostgreSQL: several "fieldapi serve" processes sharing a database
// (number series, idempotency, tokens, revocation, per-process rate
// limits), and one serve process behind a TCP proxy that can cut, stall
// or delay the database (503 engine_unreachable and recovery, connect
// timeouts, a database gone silent under load, 504 engine_timeout with a
// safe retry, graceful shutdown).
//
// The package holds tests only. They need FIELDAPI_TEST_POSTGRES (for
// example postgres://postgres@127.0.0.1:5432/test?sslmode=disable) and are
// skipped without it; each test works in a fresh schema, dropped after.
package scaletest
