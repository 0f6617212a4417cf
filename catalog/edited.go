package catalog

import (
	"io/fs"
	"testing/fstest"
)

// BuiltinWith loads a copy of the builtin catalog after edit has changed
// its files (file name → YAML; a file set to "" is removed). Tests use it
// to try a catalog edit, such as a field removed or a register renamed,
// without touching the files.
func BuiltinWith(edit func(files map[string]string)) (*Catalog, error) {
	names, err := fs.Glob(builtin, "*.yaml")
	if err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, name := range names {
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
