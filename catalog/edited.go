package catalog

import (
	"io/fs"
	"testing/fstest"
)

// BuiltinWith loads a copy of the builtin catalog after edit has changed
// its files (path → YAML, such as tasks.yaml or fieldsets/address.yaml; a
// file set to "" is removed). Tests use it
// to try a catalog edit, such as a field removed or a register renamed,
// without touching the files.
func BuiltinWith(edit func(files map[string]string)) (*Catalog, error) {
	registers, err := fs.Glob(builtin, RegisterFiles)
	if err != nil {
		return nil, err
	}
	sets, err := fs.Glob(builtin, FieldSetFiles)
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
	return LoadFS(fsys)
}
