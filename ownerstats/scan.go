package ownerstats

import (
	"io"
	"runtime"
	"slices"

	"github.com/dppub/dppub/data"
)

// Scan computes the statistics of delimited text in one pass on every
// core, in memory that does not grow with the number of records:
// data.Scan parses blocks of records concurrently, each of its workers
// adds its rows to its own Statistics (Encoders.Add with its own
// Scratch), and the workers' statistics are merged at the end. Every
// accumulator is an integer, so the result is bit for bit FromTable's on
// the table data.ReadCSV reads from the same text with c.Read, whatever
// the number of workers or the block size.
//
// c.Read is how the text is read; o.ReadOptions is ignored. c.First is
// not needed (Scan reads the first line itself). With c.Read.SkipColumns
// the statistics are those of c.Schema less the columns skipped (as
// data.ReadCSV's table): the owner's session schema is that one.
func Scan(r io.Reader, c Config, o data.ScanOptions) (*Statistics, data.ReadStats, error) {
	return scan(c, o, func(o data.ScanOptions, start func(data.Schema) error, consume func(int, [][]float64) error) (data.ReadStats, error) {
		return data.Scan(r, c.Schema, o, start, consume)
	})
}

// ScanFile Scans the file at path (data.ScanFile: messages name it).
func ScanFile(path string, c Config, o data.ScanOptions) (*Statistics, data.ReadStats, error) {
	return scan(c, o, func(o data.ScanOptions, start func(data.Schema) error, consume func(int, [][]float64) error) (data.ReadStats, error) {
		return data.ScanFile(path, c.Schema, o, start, consume)
	})
}

func scan(c Config, o data.ScanOptions, read func(data.ScanOptions, func(data.Schema) error, func(int, [][]float64) error) (data.ReadStats, error)) (*Statistics, data.ReadStats, error) {
	// Refuse a configuration no session can use before reading a line.
	e, err := c.NewEncoders()
	if err != nil {
		return nil, data.ReadStats{}, err
	}
	// The rows follow the schema less the skipped columns (start is told
	// it before any row): the statistics are those of that schema.
	start := func(kept data.Schema) error {
		if len(c.Read.SkipColumns) == 0 {
			return nil
		}
		c.Schema = kept
		e, err = c.NewEncoders()
		return err
	}
	name := o.Name
	o.ReadOptions = c.Read
	if name != "" {
		o.Name = name
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	type worker struct {
		s  *Statistics
		sc Scratch
	}
	// One accumulator per worker: data.Scan calls consume concurrently,
	// but never twice at once with the same worker, so no locks.
	ws := make([]*worker, o.Workers)
	consume := func(w int, rows [][]float64) error {
		wk := ws[w]
		if wk == nil {
			wk = &worker{s: e.New()}
			e.count32(&wk.sc)
			ws[w] = wk
		}
		if wk.sc.rows+uint64(len(rows)) > maxRows32 {
			wk.sc.flush(wk.s)
		}
		for _, row := range rows {
			if err := e.addPartial(wk.s, row, &wk.sc); err != nil {
				return err
			}
		}
		return nil
	}
	st, err := read(o, start, consume)
	if err != nil {
		return nil, st, err
	}
	out := e.New()
	for _, wk := range slices.DeleteFunc(ws, func(w *worker) bool { return w == nil }) {
		wk.sc.flush(wk.s)
		if err := out.Merge(wk.s); err != nil {
			return nil, st, err
		}
	}
	// The workers added the rows' moments less the terms between
	// categorical columns (addPartial): the merged counts give them.
	e.settle(out)
	return out, st, nil
}
