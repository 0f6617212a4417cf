package codegen

import (
	"testing"

	"fieldapi/codegen/model"
)

// generate renders a model as the generated package fieldapi/generated.
func generate(t *testing.T, m *model.Model) map[string][]byte {
	t.Helper()
	files, err := Generate(m, Options{PkgPath: "fieldapi/generated"})
	if err != nil {
		t.Fatal("Generate:", err)
	}
	return files
}

// generateNames renders a model's names package as fieldapi/engine/names.
func generateNames(t *testing.T, m *model.Model) map[string][]byte {
	t.Helper()
	files, err := GenerateNames(m, namesImportPath)
	if err != nil {
		t.Fatal("GenerateNames:", err)
	}
	return files
}
