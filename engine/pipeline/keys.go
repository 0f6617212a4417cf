package pipeline

import (
	"context"
	"fmt"
	"slices"

	"fieldapi/engine"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// Keys returns the store of API keys and tokens. A key is created only for
// a company and a signature that exist in the engine.
func (e *Engine) Keys() engine.KeyStore { return keyStore{KeyStore: e.platform.Keys(), e: e} }

type keyStore struct {
	engine.KeyStore
	e *Engine
}

// CreateKey checks the company and the signature exist, then stores the key.
func (ks keyStore) CreateKey(ctx context.Context, k engine.Key) error {
	companies, err := ks.e.Companies(ctx)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(companies, func(c Company) bool { return c.ID == k.Company }) {
		return fmt.Errorf("unknown company %q", k.Company)
	}
	n, err := ks.e.store.Count(ctx, store.Select{Table: registers.Users, Company: k.Company, Where: []store.Cond{store.Equal("Sign", k.Sign)}})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("unknown sign %q in company %q", k.Sign, k.Company)
	}
	return ks.KeyStore.CreateKey(ctx, k)
}

// Company is one company of the engine.
type Company struct {
	ID   string
	Name string
}

// Companies lists the engine's companies by id.
func (e *Engine) Companies(ctx context.Context) ([]Company, error) {
	rows, err := e.store.Select(ctx, store.Select{Table: registers.CompaniesTable, OrderBy: []store.Order{{Field: "id"}}})
	if err != nil {
		return nil, err
	}
	out := make([]Company, len(rows))
	for i, row := range rows {
		out[i].ID, _ = row.Values["id"].(string)
		out[i].Name, _ = row.Values["name"].(string)
	}
	return out, nil
}
