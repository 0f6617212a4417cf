package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRulesHoldNoSQL: rule code works through Tx only. Besides the
// standard library (database/sql excepted) it imports only the port, the
// generated names and the catalog, and no SQL text is written here.
func TestRulesHoldNoSQL(t *testing.T) {
	allowed := []string{"fieldapi/engine", "fieldapi/engine/names", "fieldapi/catalog"}
	sqlText := regexp.MustCompile(`(?i)\b(SELECT\s.+\sFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b`)
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatal("no Go files:", err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			standard := !strings.Contains(strings.Split(path, "/")[0], ".") && !strings.HasPrefix(path, "fieldapi")
			if (standard && !strings.HasPrefix(path, "database/")) || slices.Contains(allowed, path) {
				continue
			}
			t.Errorf("%s imports %s: rules work through Tx, with the port, the names and the catalog only", name, path)
		}
		for _, quoted := range stringLiterals(f) {
			if lit, err := strconv.Unquote(quoted); err == nil && sqlText.MatchString(lit) {
				t.Errorf("%s: SQL text %q: rules work through Tx", name, lit)
			}
		}
	}
}

// stringLiterals lists the string literals of a Go file, quoted as written.
func stringLiterals(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			out = append(out, lit.Value)
		}
		return true
	})
	return out
}
