package apitest

import (
	"io"
	"log/slog"
)

// quietLogger keeps expected failures (panics tested on purpose, 500s) out of test output.
func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
