// Command fieldgen generates the HTTP layer of every register from the
// catalog: go run ./cmd/fieldgen -catalog catalog -out generated
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
	flag.Parse()
	if err := run(*catalogDir, *outDir, *pkgPath); err != nil {
		fmt.Fprintln(os.Stderr, "fieldgen:", err)
		os.Exit(1)
	}
}

func run(catalogDir, outDir, pkgPath string) error {
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
	return codegen.WriteDir(outDir, files)
}
