//go:build ignore

// Command export writes a built-in dataset the way dppub reads it (same
// parser, same dropped rows, same clamping) as a header CSV without the ID
// column, plus its schema JSON, so that every method in the benchmark starts
// from identical rows. Usage (from the module root):
//
//	go run docs/results/synthesis/export.go -dataset adult -out DIR
//
// It writes DIR/<dataset>.csv, DIR/<dataset>.schema.json and
// DIR/<dataset>.label (the label column, empty when the dataset has none).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
)

func main() {
	name := flag.String("dataset", "", "built-in dataset name")
	out := flag.String("out", ".", "output directory")
	flag.Parse()
	if err := run(*name, *out); err != nil {
		fmt.Fprintln(os.Stderr, "export:", err)
		os.Exit(1)
	}
}

func run(name, out string) error {
	t, err := datasets.Load(name)
	if err != nil {
		return err
	}
	// The ID column is not an attribute and no method synthesises it.
	t = &data.Table{Schema: data.Schema{Attributes: t.Schema.Attributes}, Rows: t.Rows}
	label := ""
	for _, in := range datasets.List() {
		if in.Name == name {
			label = in.Label
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(out, name+".csv"))
	if err != nil {
		return err
	}
	if err := data.WriteCSV(f, t); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t.Schema, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, name+".schema.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, name+".label"), []byte(label), 0o644)
}
