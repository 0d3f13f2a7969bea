// Package pipeline computes an owner's statistics (package stats) with
// Apache Beam: lines of the owner's files are parsed and encoded per
// record by the core's own code (data.LineParser, data.RowEncoder,
// domain.Domain), summed in exact integer accumulators by a lifted
// CombineFn, and the one result is written as a statistics file. The same
// pipeline runs on Prism locally and, unchanged, on Dataflow, Flink or
// Spark. Nothing here adds noise: the owner releases the statistics with
// dppub's mechanisms afterwards.
package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/dppub/dppub/data"
	stats "github.com/dppub/dppub/ownerstats"
)

// Acc is the combiner's accumulator: statistics so far, with the
// worker-local encoders (rebuilt from the configuration where needed,
// never shipped).
type Acc struct {
	S   *stats.Statistics
	enc *stats.Encoders
	lp  *data.LineParser
	sc  stats.Scratch
	row []float64
}

func encodeAcc(a *Acc) ([]byte, error) {
	if a.S == nil {
		return nil, nil
	}
	return a.S.MarshalBinary()
}

func decodeAcc(b []byte) (*Acc, error) {
	if len(b) == 0 {
		return &Acc{}, nil
	}
	s := new(stats.Statistics)
	if err := s.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return &Acc{S: s}, nil
}

// statsFn sums records into statistics. Config travels as JSON.
type statsFn struct {
	Config string
}

func (f *statsFn) config() (stats.Config, error) { return stats.ParseConfig([]byte(f.Config)) }

func (f *statsFn) CreateAccumulator() *Acc { return &Acc{} }

func (f *statsFn) init(a *Acc) error {
	if a.enc != nil {
		return nil
	}
	c, err := f.config()
	if err != nil {
		return err
	}
	if a.enc, err = c.NewEncoders(); err != nil {
		return err
	}
	if a.lp, err = data.NewLineParser(c.Schema, c.Read, c.First); err != nil {
		return err
	}
	if a.S == nil {
		a.S = a.enc.New()
	}
	a.row = make([]float64, len(c.Schema.Attributes))
	return nil
}

// AddInput parses, encodes and counts one line: one record, one
// contribution.
func (f *statsFn) AddInput(a *Acc, line string) (*Acc, error) {
	if err := f.init(a); err != nil {
		return nil, err
	}
	row, ok, err := a.lp.Parse(line, a.row)
	if err != nil || !ok {
		return a, err
	}
	return a, a.enc.Add(a.S, row, &a.sc)
}

func (f *statsFn) MergeAccumulators(a, b *Acc) (*Acc, error) {
	switch {
	case b.S == nil:
		return a, nil
	case a.S == nil:
		return b, nil
	}
	return a, a.S.Merge(b.S)
}

func (f *statsFn) ExtractOutput(a *Acc) ([]byte, error) {
	if err := f.init(a); err != nil {
		return nil, err
	}
	return a.S.MarshalBinary()
}

// writeFn writes the one statistics file through Beam's filesystems
// (local paths, gs://, s3://).
type writeFn struct{ Path string }

func (w *writeFn) ProcessElement(ctx context.Context, b []byte) error {
	fs, err := filesystem.New(ctx, w.Path)
	if err != nil {
		return err
	}
	defer fs.Close()
	return filesystem.Write(ctx, fs, w.Path, b)
}

func init() {
	beam.RegisterCoder(reflect.TypeOf((*Acc)(nil)), encodeAcc, decodeAcc)
	register.Combiner3[*Acc, string, []byte](&statsFn{})
	register.DoFn2x1[context.Context, []byte, error](&writeFn{})
}

// Build adds to s the pipeline that reads the files matching input (one
// record per line, as c.Read says) and writes their statistics to output.
func Build(s beam.Scope, c stats.Config, input, output string) error {
	if _, err := c.NewEncoders(); err != nil {
		return err
	}
	cfg, err := jsonConfig(c)
	if err != nil {
		return err
	}
	lines := textio.Read(s, input)
	st := beam.Combine(s, &statsFn{Config: cfg}, lines)
	beam.ParDo0(s, &writeFn{Path: output}, st)
	return nil
}

func jsonConfig(c stats.Config) (string, error) {
	b, err := c.JSON()
	if err != nil {
		return "", fmt.Errorf("pipeline: %w", err)
	}
	return string(b), nil
}
