// Command fieldgen generates the HTTP layer of every register from the
// catalog, and the typed Go client's register files:
//
//	go run ./cmd/fieldgen -catalog catalog -out generated -client client
package main

import (
	"flag"
	"fmt"
	"os"

	"fieldapi/catalog"
	"fieldapi/codegen"
)

func main() {
	catalogDir := flag.String("catalog", "catalog", "directory of register YAML files")
	outDir := flag.String("out", "generated", "directory of the generated package")
	pkgPath := flag.String("pkg", "fieldapi/generated", "import path of the generated package")
	clientDir := flag.String("client", "", "directory of the typed Go client (package fieldapi/client); empty: no client files")
	flag.Parse()
	if err := run(*catalogDir, *outDir, *pkgPath, *clientDir); err != nil {
		fmt.Fprintln(os.Stderr, "fieldgen:", err)
		os.Exit(1)
	}
}

func run(catalogDir, outDir, pkgPath, clientDir string) error {
	cat, err := catalog.LoadDir(catalogDir)
	if err != nil {
		return err
	}
	model, err := codegen.NewModel(cat)
	if err != nil {
		return err
	}
	files, err := codegen.Generate(model, codegen.Options{PkgPath: pkgPath})
	if err != nil {
		return err
	}
	if err := codegen.WriteDir(outDir, files); err != nil {
		return err
	}
	if clientDir == "" {
		return nil
	}
	clientFiles, err := codegen.GenerateClient(model)
	if err != nil {
		return err
	}
	return codegen.WriteDir(clientDir, clientFiles)
}
