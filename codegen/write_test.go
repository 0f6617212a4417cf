package codegen

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/matryer/is"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestWriteDirDeletesOnlyGeneratedFiles: the files of a removed register go,
// hand-written files and directories stay.
func TestWriteDirDeletesOnlyGeneratedFiles(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "customers_gen.go"), "old customers")
	writeFile(t, filepath.Join(dir, "removed_gen.go"), "a register no longer in the catalog")
	writeFile(t, filepath.Join(dir, "generate.go"), "hand-written")
	writeFile(t, filepath.Join(dir, "notes.txt"), "hand-written")
	writeFile(t, filepath.Join(dir, "gen_test.go"), "hand-written")
	is.NoErr(os.Mkdir(filepath.Join(dir, "sub_gen.go"), 0o755)) // a directory is never removed

	is.NoErr(WriteDir(dir, map[string][]byte{"customers_gen.go": []byte("new customers"), "openapi.json": []byte("{}")}))

	is.Equal(readFile(t, filepath.Join(dir, "customers_gen.go")), "new customers")
	is.Equal(readFile(t, filepath.Join(dir, "openapi.json")), "{}")
	is.True(!exists(filepath.Join(dir, "removed_gen.go"))) // deleted
	is.True(exists(filepath.Join(dir, "generate.go")))     // kept
	is.True(exists(filepath.Join(dir, "notes.txt")))       // kept
	is.True(exists(filepath.Join(dir, "gen_test.go")))     // kept
	is.True(exists(filepath.Join(dir, "sub_gen.go")))      // kept

	// A catalog that no longer renders openapi.json would lose it too.
	is.NoErr(WriteDir(dir, map[string][]byte{"customers_gen.go": []byte("new customers")}))
	is.True(!exists(filepath.Join(dir, "openapi.json")))
}

// TestWriteDirKeepsUnchangedFiles: a file whose content is unchanged is not
// rewritten, so its modification time stays; a changed one is rewritten.
func TestWriteDirKeepsUnchangedFiles(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	files := map[string][]byte{"a_gen.go": []byte("package a\n"), "b_gen.go": []byte("package b\n")}
	is.NoErr(WriteDir(dir, files))
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for name := range files {
		is.NoErr(os.Chtimes(filepath.Join(dir, name), old, old))
	}

	files["b_gen.go"] = []byte("package b // changed\n")
	is.NoErr(WriteDir(dir, files))

	a, err := os.Stat(filepath.Join(dir, "a_gen.go"))
	is.NoErr(err)
	is.True(a.ModTime().Equal(old)) // unchanged: not rewritten
	b, err := os.Stat(filepath.Join(dir, "b_gen.go"))
	is.NoErr(err)
	is.True(!b.ModTime().Equal(old)) // changed: rewritten
	is.Equal(readFile(t, filepath.Join(dir, "b_gen.go")), "package b // changed\n")
}

// TestWriteDirCreatesTheDirectory: a wiped output directory is recreated.
func TestWriteDirCreatesTheDirectory(t *testing.T) {
	is := is.New(t)
	dir := filepath.Join(t.TempDir(), "generated")
	is.NoErr(WriteDir(dir, map[string][]byte{"x_gen.go": []byte("package x\n")}))
	is.Equal(readFile(t, filepath.Join(dir, "x_gen.go")), "package x\n")
}
