// Command dppub-beam computes a data owner's statistics with Apache Beam
// (see ../../README.md): PPCA-DP-MH's exact moments and every 1-way and
// 2-way marginal count of the marginal engine's domain, written to one
// statistics file. No noise is added; the owner releases the statistics
// with dppub afterwards.
//
//	dppub-beam --schema adult.schema.json --input 'gs://bucket/adult-*.csv' \
//	    --output gs://bucket/adult.stats --runner dataflow ...
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/dppub/dppub/beam/pipeline"
	"github.com/dppub/dppub/data"
	stats "github.com/dppub/dppub/ownerstats"
)

var (
	schemaPath = flag.String("schema", "", "the owner's schema (JSON, as dppub reads it)")
	input      = flag.String("input", "", "input files (a glob; local, gs:// or s3://), one record per line")
	output     = flag.String("output", "", "the statistics file to write")
	header     = flag.Bool("header", false, "the files start with a header line naming the columns")
	first      = flag.String("first-line", "", "the files' first line (read from the first matching file when empty)")
	// --bins, --bins-for, --fine, --grid: the same flags as `dppub
	// statistics`, defined once in ownerstats.
	domain stats.ConfigFlags
)

func main() {
	domain.Register(flag.CommandLine)
	flag.Parse()
	beam.Init()
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "dppub-beam:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if *schemaPath == "" || *input == "" || *output == "" {
		return fmt.Errorf("--schema, --input and --output are required")
	}
	schema, err := data.LoadSchema(*schemaPath)
	if err != nil {
		return err
	}
	line := *first
	if line == "" {
		if line, err = firstLine(ctx, *input); err != nil {
			return err
		}
	}
	c := stats.Config{Schema: schema, Read: data.ReadOptions{Header: *header}, First: line}
	if err := domain.Apply(&c); err != nil {
		return err
	}
	p, s := beam.NewPipelineWithRoot()
	if err := pipeline.Build(s, c, *input, *output); err != nil {
		return err
	}
	return beamx.Run(ctx, p)
}

// firstLine reads the first line of the first file matching glob.
func firstLine(ctx context.Context, glob string) (string, error) {
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		return "", err
	}
	defer fs.Close()
	files, err := fs.List(ctx, glob)
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("no input matches %q (%v)", glob, err)
	}
	r, err := fs.OpenRead(ctx, files[0])
	if err != nil {
		return "", err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return "", fmt.Errorf("%s is empty (%v)", files[0], sc.Err())
	}
	return sc.Text(), nil
}
