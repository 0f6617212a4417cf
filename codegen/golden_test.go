package codegen

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/matryer/is"

	"fieldapi/catalog"
	"fieldapi/codegen/enginenames"
	"fieldapi/codegen/internal/modeltest"
	"fieldapi/codegen/model"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from testdata/catalog")

const (
	goldenDir       = "testdata/golden"
	goldenNamesDir  = "testdata/golden_names" // the engine's names package for the fixture
	namesImportPath = "fieldapi/engine/names"
)

// TestGolden generates the fixture catalog and compares every file with
// testdata/golden byte for byte. After a deliberate change to the output:
//
//	go test ./codegen -run TestGolden -update
func TestGolden(t *testing.T) {
	checkGolden(t, "TestGolden", goldenDir, generate(t, modeltest.Fixture(t)))
}

// TestGoldenNames does the same for the engine's names package.
func TestGoldenNames(t *testing.T) {
	checkGolden(t, "TestGoldenNames", goldenNamesDir, generateNames(t, modeltest.Fixture(t)))
}

// checkGolden compares the files one generator made of the fixture catalog
// with the golden directory dir, byte for byte; with -update it rewrites
// dir instead. test names the test to rerun with -update, for the message.
func checkGolden(t *testing.T, test, dir string, files map[string][]byte) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := WriteDir(dir, files); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s (%d files)", dir, len(files))
		return
	}
	golden := readDir(t, dir, func(string) bool { return true })
	if diffs := compareFiles(files, golden); len(diffs) > 0 {
		t.Errorf("the output for %s differs from %s (if intended: go test ./codegen -run %s -update):\n%s",
			modeltest.FixtureDir(t), dir, test, strings.Join(diffs, "\n"))
	}
}

// TestGeneratedUpToDate regenerates the real catalog and compares it with
// the committed generated/ package, so a stale generated/ fails go test.
func TestGeneratedUpToDate(t *testing.T) {
	m := modeltest.Builtin(t)
	files := generate(t, m)
	committed := readDir(t, "../generated", IsGenerated)
	if diffs := compareFiles(files, committed); len(diffs) > 0 {
		t.Errorf("generated/ is stale; run: go generate ./catalog\n%s", strings.Join(diffs, "\n"))
	}
	names := generateNames(t, m)
	committedNames := readDir(t, "../engine/names", IsGenerated)
	if diffs := compareFiles(names, committedNames); len(diffs) > 0 {
		t.Errorf("engine/names is stale; run: go generate ./catalog\n%s", strings.Join(diffs, "\n"))
	}
}

// readDir reads the files of dir whose names keep accepts.
func readDir(t *testing.T, dir string, keep func(string) bool) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() || !keep(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

// compareFiles lists, in name order, every file missing, extra or different,
// with the first line that differs.
func compareFiles(got, want map[string][]byte) []string {
	var diffs []string
	all := maps.Clone(got)
	maps.Copy(all, want)
	for _, name := range slices.Sorted(maps.Keys(all)) {
		g, inGot := got[name]
		w, inWant := want[name]
		switch {
		case !inWant:
			diffs = append(diffs, fmt.Sprintf("  %s: generated but not expected", name))
		case !inGot:
			diffs = append(diffs, fmt.Sprintf("  %s: expected but not generated", name))
		case !bytes.Equal(g, w):
			diffs = append(diffs, fmt.Sprintf("  %s: %s", name, firstDifference(g, w)))
		}
	}
	return diffs
}

func firstDifference(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w || i >= len(gl) || i >= len(wl) {
			return fmt.Sprintf("line %d\n      got:  %q\n      want: %q", i+1, g, w)
		}
	}
	return "differs"
}

// reversedFS lists directories in reverse order, to show the output does
// not depend on the order catalog files are read.
type reversedFS struct{ fs.FS }

func (r reversedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(r.FS, name)
	slices.Reverse(entries)
	return entries, err
}

// TestGenerateIsDeterministic: twice the same model, the files read in
// reverse order, and the catalog's registers shuffled all give the same
// bytes.
func TestGenerateIsDeterministic(t *testing.T) {
	is := is.New(t)
	fixtureDir := modeltest.FixtureDir(t)
	first := generate(t, modeltest.Fixture(t))
	is.Equal(compareFiles(generate(t, modeltest.Fixture(t)), first), nil)                                // generated twice
	is.Equal(compareFiles(generate(t, modeltest.OfFS(t, reversedFS{os.DirFS(fixtureDir)})), first), nil) // files read in reverse
	firstNames := generateNames(t, modeltest.Fixture(t))
	is.Equal(compareFiles(generateNames(t, modeltest.Fixture(t)), firstNames), nil)                                // names twice
	is.Equal(compareFiles(generateNames(t, modeltest.OfFS(t, reversedFS{os.DirFS(fixtureDir)})), firstNames), nil) // names, files in reverse

	cat, err := catalog.LoadDir(fixtureDir)
	is.NoErr(err)
	slices.Reverse(cat.Registers)
	cat.Registers = append(cat.Registers[1:], cat.Registers[0])
	m, err := model.New(cat)
	is.NoErr(err)
	is.Equal(compareFiles(generate(t, m), first), nil)           // registers in another order
	is.Equal(compareFiles(generateNames(t, m), firstNames), nil) // names, registers in another order
}

var generatedHeader = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

// TestGeneratedGoFiles checks every Go file generated for the fixture, the
// real catalog and every combination: the standard header naming its
// catalog file, it parses, it is gofmt-clean, and every declaration has a
// doc comment (handlers naming their method and path).
func TestGeneratedGoFiles(t *testing.T) {
	realModel := modeltest.Builtin(t)
	catalogs := []struct {
		name  string
		model *model.Model
	}{
		{"fixture", modeltest.Fixture(t)},
		{"real", realModel},
		{"combinations", modeltest.OfFS(t, modeltest.EveryCombination())},
	}
	for _, c := range catalogs {
		cname, m := c.name, c.model
		files := generate(t, m)
		names := generateNames(t, m)
		for _, r := range m.Registers {
			if files[r.OutFile] == nil || names[r.OutFile] == nil {
				t.Errorf("%s: no %s for register %s", cname, r.OutFile, r.Name)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			t.Run(cname+"/"+name, func(t *testing.T) {
				checkGoFile(t, name, files[name])
			})
		}
		for _, name := range slices.Sorted(maps.Keys(names)) {
			t.Run(cname+"/names/"+name, func(t *testing.T) {
				checkGoFile(t, name, names[name])
			})
		}
	}
}

var handlerDoc = regexp.MustCompile(`^\w+ serves (GET|POST|PATCH|PUT) /v1/\S+\.$`)

func checkGoFile(t *testing.T, name string, src []byte) {
	first, _, _ := strings.Cut(string(src), "\n")
	want := "// Code generated by fieldgen from catalog/" + strings.TrimSuffix(name, "_gen.go") + ".yaml; DO NOT EDIT."
	if name == "api_gen.go" || name == enginenames.DocFile {
		want = "// Code generated by fieldgen from catalog/*.yaml; DO NOT EDIT."
	}
	if first != want || !generatedHeader.MatchString(first) {
		t.Errorf("first line %q, want %q", first, want)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("does not parse: %v", err)
	}
	if !ast.IsGenerated(f) {
		t.Error("go/ast does not see the file as generated")
	}
	formatted, err := format.Source(src)
	if err != nil || !bytes.Equal(formatted, src) {
		t.Errorf("not gofmt-clean (err %v)", err)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Doc == nil {
				t.Errorf("func %s has no doc comment", d.Name.Name)
				continue
			}
			if isHandler(d) && !handlerDoc.MatchString(strings.TrimSpace(d.Doc.Text())) {
				t.Errorf("handler %s: doc %q does not name its method and path", d.Name.Name, d.Doc.Text())
			}
		case *ast.GenDecl:
			if d.Tok != token.IMPORT && d.Doc == nil {
				t.Errorf("%s declaration at %s has no doc comment", d.Tok, fset.Position(d.Pos()))
			}
		}
	}
}

// isHandler reports whether a function is func(c *runtime.Call) error.
func isHandler(d *ast.FuncDecl) bool {
	ps := d.Type.Params.List
	if d.Recv != nil || len(ps) != 1 {
		return false
	}
	star, ok := ps[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Call"
}

// TestGeneratorAcceptsEveryCombination: whatever the loader accepts, the
// generator renders.
func TestGeneratorAcceptsEveryCombination(t *testing.T) {
	is := is.New(t)
	m := modeltest.OfFS(t, modeltest.EveryCombination())
	files := generate(t, m)
	is.Equal(len(m.Registers), 3)
	is.Equal(len(m.Registers[1].Fields), 4+6*4)    // combos: Nr, RefOne, RefMany, RefName and 6 types × 4 accesses
	is.Equal(len(m.Registers[1].Filters), 6*4+1+1) // 4 matches a type, contains on text, negate on bool
	is.True(bytes.Contains(files["combos_gen.go"], []byte("var comboLinesShape = runtime.Shape{")))
	is.True(bytes.Contains(files["combolines_gen.go"], []byte("type ComboLineWrite struct {"))) // a line register has a body
	is.True(!bytes.Contains(files["readonlies_gen.go"], []byte("Write struct")))                // a read-only one has none
}

// TestNewModelAcceptsBodyMethodNamesWithoutBody: a read-only register has
// no body type, so a field called Input is fine there.
func TestNewModelAcceptsBodyMethodNamesWithoutBody(t *testing.T) {
	m := modeltest.Of(t, map[string]string{"things.yaml": "register: things\nrecord: Thing\nkey: Nr\nfields:\n  - {name: Nr}\n  - {name: Input}\n"})
	generate(t, m)
}
