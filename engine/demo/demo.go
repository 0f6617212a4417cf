// Package demo holds the demo companies and loads them into an engine.
//
// Two companies, from embedded data files (data/*.json, package dataset's
// format): "demo", a Swedish service company (Europe/Stockholm), and
// "demo2", a Norwegian one (Europe/Oslo). Each register has keys only one
// of them has, and a few both have with different content (customer 1001,
// price list 1, time type Normaltid, task 10001), so tests tell them
// apart. Dates are fixed: every load gives the same data.
//
// The data goes through the engine's import path (any field, no change
// log, no status checks), each batch once per database, so Load may run
// again.
//
// To change the demo data, edit the data files (one record a line, fields
// as stored, lines as records of their own registers); testdata/demo.dump
// holds every row the load stores: check the difference and record it
// with go test ./engine/demo -update. Data for a new register goes in a
// new batch, so it loads into existing databases too.
package demo

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fieldapi/engine/dataset"
)

// Importer is the engine's import path (pipeline.Engine implements it).
type Importer interface {
	Import(ctx context.Context, c dataset.Company) error
}

//go:embed data
var files embed.FS

// companyFiles are the demo companies in load order.
var companyFiles = []string{"data/demo.json", "data/demo2.json"}

// The service manual the demo's link documents point to: written under the
// system's temporary directory, whose path the data files spell tmpDirMark.
const (
	manualFile = "data/servicehandbok-nibe-f1255.txt"
	tmpDirMark = "$TMPDIR"
)

// Load imports the demo companies. It is idempotent.
func Load(ctx context.Context, eng Importer) error {
	tmp := os.TempDir()
	if err := writeManual(tmp); err != nil {
		return fmt.Errorf("demo files: %w", err)
	}
	companies, err := readCompanies(tmp)
	if err != nil {
		return err
	}
	for _, c := range companies {
		if err := eng.Import(ctx, c); err != nil {
			return fmt.Errorf("demo company %s: %w", c.ID, err)
		}
	}
	return nil
}

// readCompanies reads the demo companies from the data files; link documents
// point into tmpDir.
func readCompanies(tmpDir string) ([]dataset.Company, error) {
	var companies []dataset.Company
	for _, name := range companyFiles {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		var c dataset.Company
		if err := dec.Decode(&c); err != nil {
			return nil, fmt.Errorf("demo %s: %w", name, err)
		}
		for _, b := range c.Batches {
			for _, r := range b.Registers {
				for _, rec := range r.Records {
					for i, d := range rec.Documents {
						rec.Documents[i].LinkPath = strings.Replace(d.LinkPath, tmpDirMark, tmpDir, 1)
					}
				}
			}
		}
		companies = append(companies, c)
	}
	return companies, nil
}

// writeManual writes the service manual into dir/fieldapi-demo on every
// load, so the link works again after the directory was cleaned; the
// rename makes parallel loads safe.
func writeManual(tmp string) error {
	manual, err := files.ReadFile(manualFile)
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "fieldapi-demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".manual-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // gone after the rename; cleans up on failure
	if _, err := f.Write(manual); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, filepath.Base(manualFile)))
}
