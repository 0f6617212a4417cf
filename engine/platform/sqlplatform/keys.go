package sqlplatform

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"fieldapi/engine"
	"fieldapi/engine/platform"
	"fieldapi/engine/sqldb"
)

// keyStore keeps API keys and tokens in api_keys and api_tokens. Secrets
// are stored only as hashes (hex text); lists as JSON text.
type keyStore struct{ *Platform }

type keyRow struct {
	ClientID   string         `db:"client_id"`
	Company    string         `db:"company"`
	Sign       string         `db:"sign"`
	Scopes     string         `db:"scopes"`
	AllowedIPs string         `db:"allowed_ips"`
	SecretHash string         `db:"secret_hash"`
	Created    string         `db:"created"`
	Revoked    sql.NullString `db:"revoked"`
}

const keyColumns = `"client_id", "company", "sign", "scopes", "allowed_ips", "secret_hash", "created", "revoked"`

func (r keyRow) key() (engine.Key, error) {
	k := engine.Key{ClientID: r.ClientID, Company: r.Company, Sign: r.Sign}
	var err error
	if k.SecretHash, err = hex.DecodeString(r.SecretHash); err != nil {
		return k, fmt.Errorf("key %s: secret hash: %w", r.ClientID, err)
	}
	if err := json.Unmarshal([]byte(r.Scopes), &k.Scopes); err != nil {
		return k, fmt.Errorf("key %s: scopes: %w", r.ClientID, err)
	}
	if err := json.Unmarshal([]byte(r.AllowedIPs), &k.AllowedIPs); err != nil {
		return k, fmt.Errorf("key %s: allowed IPs: %w", r.ClientID, err)
	}
	if k.Created, err = sqldb.ParseTime(r.Created); err != nil {
		return k, fmt.Errorf("key %s: created: %w", r.ClientID, err)
	}
	if r.Revoked.Valid {
		revoked, err := sqldb.ParseTime(r.Revoked.String)
		if err != nil {
			return k, fmt.Errorf("key %s: revoked: %w", r.ClientID, err)
		}
		k.Revoked = &revoked
	}
	return k, nil
}

// CreateKey stores a new key; a client id taken already, by a revoked key
// too, is refused.
func (p keyStore) CreateKey(ctx context.Context, k engine.Key) error {
	// Lists of strings always marshal; never nil, so never null.
	scopes, _ := json.Marshal(append([]string{}, k.Scopes...))
	ips, _ := json.Marshal(append([]string{}, k.AllowedIPs...))
	if k.Created.IsZero() {
		k.Created = p.now()
	}
	var revoked any // NULL
	if k.Revoked != nil {
		revoked = sqldb.FormatTime(*k.Revoked)
	}
	return p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		_, err := sqldb.Exec(ctx, q, `INSERT INTO "api_keys" (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ClientID, k.Company, k.Sign, string(scopes), string(ips), hex.EncodeToString(k.SecretHash),
			sqldb.FormatTime(k.Created), revoked)
		if p.db.Dialect().IsUniqueViolation(err) {
			return platform.KeyTaken(k.ClientID)
		}
		return err
	})
}

// LookupKey returns a key, revoked or not, or engine.ErrNoKey.
func (p keyStore) LookupKey(ctx context.Context, clientID string) (engine.Key, error) {
	var row keyRow
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Get(ctx, q, &row, `SELECT `+keyColumns+` FROM "api_keys" WHERE "client_id" = ?`, clientID)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Key{}, platform.UnknownKey(clientID)
	}
	if err != nil {
		return engine.Key{}, err
	}
	return row.key()
}

// ListKeys lists keys, of one company when company is not empty, oldest first.
func (p keyStore) ListKeys(ctx context.Context, company string) ([]engine.Key, error) {
	query := `SELECT ` + keyColumns + ` FROM "api_keys"`
	var args []any
	if company != "" {
		query += ` WHERE "company" = ?`
		args = append(args, company)
	}
	var rows []keyRow
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Select(ctx, q, &rows, query+` ORDER BY "created", "client_id"`, args...)
	})
	if err != nil {
		return nil, err
	}
	keys := make([]engine.Key, len(rows))
	for i, r := range rows {
		if keys[i], err = r.key(); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// RevokeKey marks a key revoked (once: a second revoke keeps the first
// time) and deletes its tokens, in one transaction.
func (p keyStore) RevokeKey(ctx context.Context, clientID string) error {
	return p.db.Write(ctx, func(ctx context.Context, tx *sqldb.Tx) error {
		n, err := sqldb.ExecAffected(ctx, tx, `UPDATE "api_keys" SET "revoked" = COALESCE("revoked", ?) WHERE "client_id" = ?`,
			p.stamp(), clientID)
		if err != nil {
			return err
		}
		if n == 0 {
			return platform.UnknownKey(clientID)
		}
		_, err = sqldb.Exec(ctx, tx, `DELETE FROM "api_tokens" WHERE "client_id" = ?`, clientID)
		return err
	})
}

// SaveToken stores an issued token and deletes expired ones.
func (p keyStore) SaveToken(ctx context.Context, t engine.Token) error {
	return p.db.Autocommit(ctx, func(ctx context.Context, q sqldb.Querier) error {
		if _, err := sqldb.Exec(ctx, q, `DELETE FROM "api_tokens" WHERE "expires" < ?`, p.stamp()); err != nil {
			return err
		}
		_, err := sqldb.Exec(ctx, q, `INSERT INTO "api_tokens" ("id", "secret_hash", "client_id", "expires") VALUES (?, ?, ?, ?)`,
			t.ID, hex.EncodeToString(t.SecretHash), t.ClientID, sqldb.FormatTime(t.Expires))
		return err
	})
}

// LookupToken returns a token, expired or not, or engine.ErrNoKey.
func (p keyStore) LookupToken(ctx context.Context, id string) (engine.Token, error) {
	var row struct {
		ID         string `db:"id"`
		SecretHash string `db:"secret_hash"`
		ClientID   string `db:"client_id"`
		Expires    string `db:"expires"`
	}
	err := p.db.Read(ctx, func(ctx context.Context, q sqldb.Querier) error {
		return sqldb.Get(ctx, q, &row, `SELECT "id", "secret_hash", "client_id", "expires" FROM "api_tokens" WHERE "id" = ?`, id)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return engine.Token{}, platform.UnknownToken(id)
	}
	if err != nil {
		return engine.Token{}, err
	}
	t := engine.Token{ID: row.ID, ClientID: row.ClientID}
	if t.SecretHash, err = hex.DecodeString(row.SecretHash); err != nil {
		return engine.Token{}, fmt.Errorf("token %s: secret hash: %w", id, err)
	}
	if t.Expires, err = sqldb.ParseTime(row.Expires); err != nil {
		return engine.Token{}, fmt.Errorf("token %s: expires: %w", id, err)
	}
	return t, nil
}

// parseTime reads a stored time that the platform wrote itself; a value it
// cannot read is the zero time rather than a failed list.
func parseTime(s string) time.Time {
	t, _ := sqldb.ParseTime(s)
	return t
}
