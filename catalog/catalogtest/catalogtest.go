// Package catalogtest is for tests: the builtin catalog with edits, to try
// a catalog change (a field removed, a register renamed) without touching
// the files. Only tests import it, so testing/fstest stays out of the
// binary.
package catalogtest

import (
	"io/fs"
	"testing/fstest"

	"fieldapi/catalog"
)

// BuiltinWith loads a copy of the builtin catalog after edit has changed
// its files (path → YAML, such as tasks.yaml or fieldsets/address.yaml; a
// file set to "" is removed).
func BuiltinWith(edit func(files map[string]string)) (*catalog.Catalog, error) {
	builtin := catalog.BuiltinFS()
	registers, err := fs.Glob(builtin, catalog.RegisterFiles)
	if err != nil {
		return nil, err
	}
	sets, err := fs.Glob(builtin, catalog.FieldSetFiles)
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, name := range append(registers, sets...) {
		data, err := fs.ReadFile(builtin, name)
		if err != nil {
			return nil, err
		}
		files[name] = string(data)
	}
	edit(files)
	fsys := fstest.MapFS{}
	for name, content := range files {
		if content != "" {
			fsys[name] = &fstest.MapFile{Data: []byte(content)}
		}
	}
	return catalog.LoadFS(fsys)
}
