// Package settings reads a company's settings (registers.SettingsTable:
// its time zone, a quote's validity days, the import batches done). Every
// write reads them and only an import changes them, so they are kept for
// a short time, as a signature's permissions are: a change made by an
// import in another process shows within that time, one made by this
// process's importer at once (Forget).
package settings

import (
	"context"
	"time"

	"fieldapi/engine/internal/ttlcache"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// Cache keeps companies' settings. It is safe for concurrent use.
type Cache struct {
	companies *ttlcache.Cache[map[string]string] // by company: value by name
}

// New makes a cache that trusts what it read of a company's settings for
// ttl, by the clock now.
func New(ttl time.Duration, now func() time.Time) *Cache {
	return &Cache{companies: ttlcache.New[map[string]string](ttl, now)}
}

// Of returns the company's settings by name, read through q when not
// kept. Inside a transaction q must be the transaction (see
// ttlcache.Cache.Get). The map is shared: callers must not change it.
func (c *Cache) Of(ctx context.Context, q store.Reader, company string) (map[string]string, error) {
	_, inTx := q.(store.Tx)
	return c.companies.Get(company, !inTx, func() (map[string]string, error) {
		rows, err := q.Select(ctx, store.Select{Table: registers.SettingsTable, Company: company})
		if err != nil {
			return nil, err
		}
		settings := make(map[string]string, len(rows))
		for _, row := range rows {
			name, _ := row.Values["name"].(string)
			settings[name], _ = row.Values["value"].(string)
		}
		return settings, nil
	})
}

// Forget drops what is kept of the company's settings. The importer calls
// it once settings it wrote are committed.
func (c *Cache) Forget(company string) { c.companies.Forget(company) }
