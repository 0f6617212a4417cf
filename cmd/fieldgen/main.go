// Command fieldgen generates the HTTP layer of every register from the
// catalog, the engine's name constants and the typed Go client's register
// files:
//
//	go run ./cmd/fieldgen -catalog catalog -out generated -names engine/names -client client
package main

import (
	"flag"
	"fmt"
	"os"

	"fieldapi/catalog"
	"fieldapi/codegen"
	"fieldapi/codegen/model"
)

func main() {
	catalogDir := flag.String("catalog", "catalog", "directory of register YAML files")
	outDir := flag.String("out", "generated", "directory of the generated package")
	pkgPath := flag.String("pkg", "fieldapi/generated", "import path of the generated package")
	namesDir := flag.String("names", "", "directory of the engine's names package; empty: not generated")
	namesPkg := flag.String("names-pkg", "fieldapi/engine/names", "import path of the names package")
	clientDir := flag.String("client", "", "directory of the typed Go client (package fieldapi/client); empty: no client files")
	flag.Parse()
	if err := run(*catalogDir, *outDir, *pkgPath, *namesDir, *namesPkg, *clientDir); err != nil {
		fmt.Fprintln(os.Stderr, "fieldgen:", err)
		os.Exit(1)
	}
}

func run(catalogDir, outDir, pkgPath, namesDir, namesPkg, clientDir string) error {
	cat, err := catalog.LoadDir(catalogDir)
	if err != nil {
		return err
	}
	m, err := model.New(cat)
	if err != nil {
		return err
	}
	files, err := codegen.Generate(m, codegen.Options{PkgPath: pkgPath})
	if err != nil {
		return err
	}
	if err := codegen.WriteDir(outDir, files); err != nil {
		return err
	}
	if namesDir != "" {
		names, err := codegen.GenerateNames(m, namesPkg)
		if err != nil {
			return err
		}
		if err := codegen.WriteDir(namesDir, names); err != nil {
			return err
		}
	}
	if clientDir != "" {
		clientFiles, err := codegen.GenerateClient(m)
		if err != nil {
			return err
		}
		if err := codegen.WriteDir(clientDir, clientFiles); err != nil {
			return err
		}
	}
	return nil
}
