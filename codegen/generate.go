// Package codegen turns the register catalog into generated code: the HTTP
// layer (generated/: a Go file per register, the route table, the OpenAPI
// document and the /docs reference page), the engine's names package
// (engine/names) and the typed Go client's files (client/). cmd/fieldgen
// runs it from go generate.
//
// It only puts the parts together. Package model computes every name once
// from the catalog; one package emits each artifact from the model:
// httplayer (generated/*_gen.go), openapi (openapi.json), docspage
// (docs.html, from the OpenAPI document), enginenames (engine/names) and
// goclient (client/*_gen.go). Generate, GenerateNames and GenerateClient
// render in memory; WriteDir writes.
package codegen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"

	"fieldapi/codegen/docspage"
	"fieldapi/codegen/enginenames"
	"fieldapi/codegen/goclient"
	"fieldapi/codegen/httplayer"
	"fieldapi/codegen/model"
	"fieldapi/codegen/openapi"
)

// Options say where the generated package lives.
type Options struct {
	PkgPath string // import path of the generated package, e.g. fieldapi/generated
}

// Generate renders every generated file in memory: file name → content.
// It writes nothing, so it is easy to test; WriteDir puts the files on disk.
func Generate(m *model.Model, opt Options) (map[string][]byte, error) {
	out, err := render(httplayer.Files(m, opt.PkgPath), "%s: %w")
	if err != nil {
		return nil, err
	}
	// The OpenAPI document is built once: openapi.json renders it, and the
	// reference page reads its schemas and examples.
	doc, err := openapi.NewDocument(m)
	if err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	if out["openapi.json"], err = openapi.Marshal(doc); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	page, err := docspage.Page(m, doc)
	if err != nil {
		return nil, fmt.Errorf("docs.html: %w", err)
	}
	out["docs.html"] = page
	return out, nil
}

// GenerateNames renders the engine's names package: one file per register
// plus enginenames.DocFile, file name → content. pkgPath is its import
// path, e.g. fieldapi/engine/names.
func GenerateNames(m *model.Model, pkgPath string) (map[string][]byte, error) {
	return render(enginenames.Files(m, pkgPath), "%s (names): %w")
}

// GenerateClient renders the generated files of the typed client package
// (client/): one <register>_gen.go per register and goclient.ServicesFile.
// The hand-written files of client/ hold everything they call.
func GenerateClient(m *model.Model) (map[string][]byte, error) {
	files, err := goclient.Files(m)
	if err != nil {
		return nil, err
	}
	return render(files, "client %s: %w")
}

// render formats jennifer files (jennifer runs gofmt on them), in name
// order; errFormat words a failure from the file's name and the error.
func render(files map[string]*jen.File, errFormat string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		var buf bytes.Buffer
		if err := files[name].Render(&buf); err != nil {
			return nil, fmt.Errorf(errFormat, name, err)
		}
		out[name] = buf.Bytes()
	}
	return out, nil
}
