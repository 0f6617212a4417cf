package health

import (
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"
)

// postgresEnv names the PostgreSQL the tests run against, as sqldb's do.
const postgresEnv = "FIELDAPI_TEST_POSTGRES"

// TestProbeReplacesABrokenConnection: the server closes the probe's
// connection (a restart, an idle timeout, a proxy that dropped it) and
// then answers as before. The next probe must find it answering, on a
// fresh connection: a probe that counted the broken ping as silence would
// mark a server that answers, and every call would get 503 until the
// next round.
func TestProbeReplacesABrokenConnection(t *testing.T) {
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skipf("set %s: this ends a PostgreSQL backend", postgresEnv)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := "probe_" + rand.Text()
	cfg.RuntimeParams["application_name"] = name
	p := &Probe{cfg: cfg}
	ctx := context.Background()
	var conn *pgx.Conn
	t.Cleanup(func() {
		if conn != nil {
			closeQuickly(conn)
		}
	})
	if err := p.probe(ctx, &conn); err != nil || conn == nil {
		t.Fatalf("first probe: %v (connection %v)", err, conn)
	}
	first := conn

	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var ended bool
	if err := admin.QueryRowContext(ctx, `SELECT bool_or(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the probe's backend: %v (ended %v)", err, ended)
	}

	if err := p.probe(ctx, &conn); err != nil {
		t.Fatalf("probe after the server closed its connection: %v; want it answered on a fresh connection", err)
	}
	if conn == nil || conn == first {
		t.Fatal("the probe kept its broken connection")
	}
}
