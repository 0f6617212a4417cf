package main

import (
	"context"

	"fieldapi/engine/pipeline"
)

// companyDirectory is what the CLI reads about the companies of a
// database beyond the API: which companies exist (so a wrong --company is
// answered with the right ones) and which import batches each has (so
// init --demo can say what it loaded and what it kept). The engine
// (reference.Engine) offers both.
type companyDirectory interface {
	Companies(ctx context.Context) ([]pipeline.Company, error)
	// ImportedBatches holds the name of every import batch
	// (dataset.Batch) the company has imported, and may hold other names:
	// ask it about batch names only. It is empty for a company that does
	// not exist.
	ImportedBatches(ctx context.Context, companyID string) (map[string]bool, error)
}
