// Package settings reads a company's settings (registers.SettingsTable:
// its time zone, a quote's validity days, the import batches done). Every
// write reads them and only an import changes them, so they are kept for
// a short time, as a signature's permissions are: a change made by an
// import in another process shows within that time, one made by this
// process's importer at once (Forget).
package settings

import (
	"context"
	"sync"
	"time"

	"fieldapi/engine/internal/ttlcache"
	"fieldapi/engine/pipeline/registers"
	"fieldapi/engine/store"
)

// Cache keeps companies' settings. It is safe for concurrent use.
type Cache struct {
	companies *ttlcache.Cache[*Company]
}

// Company is one company's settings as read at one time.
type Company struct {
	Values  map[string]string // value by name; shared: never changed
	decoded sync.Map          // name → decodedSetting, for Values[name]
}

type decodedSetting struct {
	value any
	err   error
}

// Decoded returns the setting name as decode makes it of the value, and
// whether the company has the setting. A value is decoded once while it
// is kept: a rule reads the same setting on every write (a task's status
// rules), and decoding it cost a create of a task 3 % of its time. Each
// setting has one decoder; what it returns is shared and never changed.
func (c *Company) Decoded(name string, decode func(value string) (any, error)) (any, bool, error) {
	value, ok := c.Values[name]
	if !ok {
		return nil, false, nil
	}
	if d, done := c.decoded.Load(name); done {
		return d.(decodedSetting).value, true, d.(decodedSetting).err
	}
	v, err := decode(value)
	c.decoded.Store(name, decodedSetting{v, err})
	return v, true, err
}

// New makes a cache that trusts what it read of a company's settings for
// ttl, by the clock now.
func New(ttl time.Duration, now func() time.Time) *Cache {
	return &Cache{companies: ttlcache.New[*Company](ttl, now)}
}

// Of returns the company's settings, read through q when not kept. Inside
// a transaction q must be the transaction (see ttlcache.Cache.Get).
func (c *Cache) Of(ctx context.Context, q store.Reader, company string) (*Company, error) {
	_, inTx := q.(store.Tx)
	return c.companies.Get(company, !inTx, func() (*Company, error) {
		rows, err := q.Select(ctx, store.Select{Table: registers.SettingsTable, Company: company})
		if err != nil {
			return nil, err
		}
		settings := &Company{Values: make(map[string]string, len(rows))}
		for _, row := range rows {
			name, _ := row.Values["name"].(string)
			settings.Values[name], _ = row.Values["value"].(string)
		}
		return settings, nil
	})
}

// Forget drops what is kept of the company's settings. The importer calls
// it once settings it wrote are committed.
func (c *Cache) Forget(company string) { c.companies.Forget(company) }
