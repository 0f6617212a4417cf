package codegen

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// IsGenerated reports whether a file name in the output directory belongs to
// the generator, so files of removed registers can be deleted safely.
func IsGenerated(name string) bool {
	return strings.HasSuffix(name, "_gen.go") || name == "openapi.json" || name == "docs.html"
}

// WriteDir writes the rendered files into dir in name order, skipping
// unchanged ones (their mtime is kept, so builds and editors see no change),
// and deletes generated files that are no longer rendered. Hand-written
// files in dir are left alone.
func WriteDir(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, keep := files[e.Name()]; !keep && !e.IsDir() && IsGenerated(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		content := files[name]
		path := filepath.Join(dir, name)
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, content) {
			continue
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}
