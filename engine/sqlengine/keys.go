package sqlengine

import (
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"fieldapi/engine"
)

// keyStore keeps API keys and tokens in api_keys and api_tokens. Secrets
// are stored only as hashes (hex text).
type keyStore struct{ e *Engine }

type keyRow struct {
	ClientID   string         `db:"client_id"`
	Company    string         `db:"company"`
	Sign       string         `db:"sign"`
	Scopes     string         `db:"scopes"`      // JSON list
	AllowedIPs string         `db:"allowed_ips"` // JSON list
	SecretHash string         `db:"secret_hash"` // hex
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
	if k.Created, err = parseTime(r.Created); err != nil {
		return k, fmt.Errorf("key %s: created: %w", r.ClientID, err)
	}
	if r.Revoked.Valid {
		revoked, err := parseTime(r.Revoked.String)
		if err != nil {
			return k, fmt.Errorf("key %s: revoked: %w", r.ClientID, err)
		}
		k.Revoked = &revoked
	}
	return k, nil
}

// CreateKey stores a new key after checking that its company and signature
// exist. A client id that is taken is refused.
func (ks keyStore) CreateKey(ctx context.Context, k engine.Key) error {
	e := ks.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		var n int
		if err := get(ctx, e.db, &n, `SELECT COUNT(*) FROM "companies" WHERE "id" = ?`, k.Company); err != nil {
			return struct{}{}, err
		}
		if n == 0 {
			return struct{}{}, fmt.Errorf("unknown company %q", k.Company)
		}
		if err := get(ctx, e.db, &n, `SELECT COUNT(*) FROM "users" WHERE "company" = ? AND "sign" = ?`, k.Company, k.Sign); err != nil {
			return struct{}{}, err
		}
		if n == 0 {
			return struct{}{}, fmt.Errorf("unknown sign %q in company %q", k.Sign, k.Company)
		}
		scopes, _ := json.Marshal(nonNil(k.Scopes))
		ips, _ := json.Marshal(nonNil(k.AllowedIPs))
		created := k.Created
		if created.IsZero() {
			created = e.opt.Now()
		}
		_, err := exec(ctx, e.db, `INSERT INTO "api_keys" (`+keyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			k.ClientID, k.Company, k.Sign, string(scopes), string(ips), hex.EncodeToString(k.SecretHash),
			formatTime(created), optionalTime(k.Revoked))
		if e.dialect.isUniqueViolation(err) {
			return struct{}{}, fmt.Errorf("client id %q is already taken", k.ClientID)
		}
		return struct{}{}, err
	})
	return err
}

// LookupKey returns a key, revoked or not, or engine.ErrNoKey.
func (ks keyStore) LookupKey(ctx context.Context, clientID string) (engine.Key, error) {
	e := ks.e
	return call(e, ctx, func(ctx context.Context) (engine.Key, error) {
		var row keyRow
		err := get(ctx, e.db, &row, `SELECT `+keyColumns+` FROM "api_keys" WHERE "client_id" = ?`, clientID)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.Key{}, fmt.Errorf("client id %q: %w", clientID, engine.ErrNoKey)
		}
		if err != nil {
			return engine.Key{}, err
		}
		return row.key()
	})
}

// ListKeys lists keys, of one company when company is not empty, oldest first.
func (ks keyStore) ListKeys(ctx context.Context, company string) ([]engine.Key, error) {
	e := ks.e
	return call(e, ctx, func(ctx context.Context) ([]engine.Key, error) {
		var rows []keyRow
		query := `SELECT ` + keyColumns + ` FROM "api_keys"`
		var args []any
		if company != "" {
			query += ` WHERE "company" = ?`
			args = append(args, company)
		}
		if err := sel(ctx, e.db, &rows, query+` ORDER BY "created", "client_id"`, args...); err != nil {
			return nil, err
		}
		keys := make([]engine.Key, len(rows))
		for i, r := range rows {
			k, err := r.key()
			if err != nil {
				return nil, err
			}
			keys[i] = k
		}
		return keys, nil
	})
}

// RevokeKey marks a key revoked and deletes its tokens, in one transaction.
func (ks keyStore) RevokeKey(ctx context.Context, clientID string) error {
	e := ks.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, e.inTx(ctx, func(tx *txn) error {
			n, err := execAffected(ctx, tx, `UPDATE "api_keys" SET "revoked" = COALESCE("revoked", ?) WHERE "client_id" = ?`,
				e.now(), clientID)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("client id %q: %w", clientID, engine.ErrNoKey)
			}
			_, err = exec(ctx, tx, `DELETE FROM "api_tokens" WHERE "client_id" = ?`, clientID)
			return err
		})
	})
	return err
}

// SaveToken stores an issued token and deletes expired ones.
func (ks keyStore) SaveToken(ctx context.Context, t engine.Token) error {
	e := ks.e
	_, err := call(e, ctx, func(ctx context.Context) (struct{}, error) {
		if _, err := exec(ctx, e.db, `DELETE FROM "api_tokens" WHERE "expires" < ?`, e.now()); err != nil {
			return struct{}{}, err
		}
		_, err := exec(ctx, e.db, `INSERT INTO "api_tokens" ("id", "secret_hash", "client_id", "expires") VALUES (?, ?, ?, ?)`,
			t.ID, hex.EncodeToString(t.SecretHash), t.ClientID, formatTime(t.Expires))
		return struct{}{}, err
	})
	return err
}

// LookupToken returns a token, expired or not, or engine.ErrNoKey.
func (ks keyStore) LookupToken(ctx context.Context, id string) (engine.Token, error) {
	e := ks.e
	return call(e, ctx, func(ctx context.Context) (engine.Token, error) {
		var row struct {
			ID         string `db:"id"`
			SecretHash string `db:"secret_hash"`
			ClientID   string `db:"client_id"`
			Expires    string `db:"expires"`
		}
		err := get(ctx, e.db, &row, `SELECT "id", "secret_hash", "client_id", "expires" FROM "api_tokens" WHERE "id" = ?`, id)
		if errors.Is(err, sql.ErrNoRows) {
			return engine.Token{}, fmt.Errorf("token %q: %w", id, engine.ErrNoKey)
		}
		if err != nil {
			return engine.Token{}, err
		}
		t := engine.Token{ID: row.ID, ClientID: row.ClientID}
		if t.SecretHash, err = hex.DecodeString(row.SecretHash); err != nil {
			return engine.Token{}, fmt.Errorf("token %s: secret hash: %w", id, err)
		}
		if t.Expires, err = parseTime(row.Expires); err != nil {
			return engine.Token{}, fmt.Errorf("token %s: expires: %w", id, err)
		}
		return t, nil
	})
}

func nonNil(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

func optionalTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}
