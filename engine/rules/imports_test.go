package rules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRulesHoldNoSQL: rule code works through Tx only. No database
// package is imported and no SQL text is written in this package.
func TestRulesHoldNoSQL(t *testing.T) {
	forbidden := []string{"database/sql", "github.com/jmoiron/sqlx", "fieldapi/engine/sqlengine"}
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
			for _, bad := range forbidden {
				if path == bad {
					t.Errorf("%s imports %s: rules work through Tx", name, path)
				}
			}
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
