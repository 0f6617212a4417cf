package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependenciesPointOneWay holds the architecture the README draws:
// generated → runtime → engine; the pipeline above the stores; no store,
// platform or rule imports the HTTP layer or the pipeline, and no store or
// platform imports the rules, the geocoder or the PDF renderer; inside the
// pipeline, write above read above registers and permissions, and the
// engine that puts them together above all. It reads the module's import
// graph with go list.
func TestDependenciesPointOneWay(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH:", err)
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}: {{join .Deps \" \"}}", "fieldapi/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, list, _ := strings.Cut(line, ": ")
		if strings.HasPrefix(pkg, "fieldapi/") {
			deps[pkg] = strings.Fields(list)
		}
	}
	rules := []struct {
		packages  []string // these packages (a trailing /... for a tree)
		mayNotUse []string // must not depend on these, directly or not (a trailing /... for a tree)
	}{
		{[]string{"fieldapi/engine/store/...", "fieldapi/engine/sqldb", "fieldapi/engine/platform/..."},
			[]string{"fieldapi/engine/rules", "fieldapi/engine/geocode", "fieldapi/engine/docrender", "fieldapi/engine/pipeline/...",
				"fieldapi/engine/locations", "fieldapi/engine/documents", "fieldapi/catalog", "fieldapi/runtime", "fieldapi/generated"}},
		{[]string{"fieldapi/engine/pipeline/...", "fieldapi/engine/rules", "fieldapi/engine/locations", "fieldapi/engine/documents"},
			[]string{"fieldapi/engine/sqldb", "fieldapi/engine/store/sqlstore", "fieldapi/engine/store/memstore",
				"fieldapi/engine/platform/sqlplatform", "fieldapi/engine/platform/memplatform", "fieldapi/runtime", "fieldapi/generated"}},
		// The modules call out over HTTP (a geocoder, a linked document);
		// the pipeline and the rules never do.
		{[]string{"fieldapi/engine/pipeline/...", "fieldapi/engine/rules"}, []string{"net/http"}},
		{[]string{"fieldapi/engine", "fieldapi/runtime"},
			[]string{"fieldapi/engine/pipeline/...", "fieldapi/engine/reference", "fieldapi/generated", "fieldapi/catalog"}},
		// Inside the pipeline each part is below the ones that use it: the
		// registers and the permissions, then the read side, then the
		// write side; the importer needs only the registers; the engine
		// (engine/pipeline itself) puts them together on top.
		{[]string{"fieldapi/engine/pipeline/registers", "fieldapi/engine/pipeline/permissions"},
			[]string{"fieldapi/engine/pipeline", "fieldapi/engine/pipeline/read", "fieldapi/engine/pipeline/write", "fieldapi/engine/pipeline/importer"}},
		{[]string{"fieldapi/engine/pipeline/read"},
			[]string{"fieldapi/engine/pipeline", "fieldapi/engine/pipeline/write", "fieldapi/engine/pipeline/importer"}},
		{[]string{"fieldapi/engine/pipeline/write"}, []string{"fieldapi/engine/pipeline", "fieldapi/engine/pipeline/importer"}},
		{[]string{"fieldapi/engine/pipeline/importer"},
			[]string{"fieldapi/engine/pipeline", "fieldapi/engine/pipeline/read", "fieldapi/engine/pipeline/write"}},
	}
	checked := 0
	for _, rule := range rules {
		for pkg, used := range deps {
			if !matches(pkg, rule.packages) {
				continue
			}
			checked++
			for _, u := range used {
				if matches(u, rule.mayNotUse) {
					t.Errorf("%s depends on %s", pkg, u)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked: go list did not list the module", checked)
	}
}

// matches reports whether pkg is one of patterns (a trailing /... names a tree).
func matches(pkg string, patterns []string) bool {
	for _, p := range patterns {
		if tree, ok := strings.CutSuffix(p, "/..."); ok && (pkg == tree || strings.HasPrefix(pkg, tree+"/")) || pkg == p {
			return true
		}
	}
	return false
}
