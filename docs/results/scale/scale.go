//go:build ignore

// Scaling measurements for docs/results/scale (run.sh drives it; not CI).
//
//	go run scale.go gen N SRC OUT   # a header and N lines resampled from SRC's records
//	go run scale.go schema OUT      # Adult's schema as JSON (for synthesize --schema)
//	go run scale.go split FILE      # plain Go loop: read lines, split on commas
//	go run scale.go ppca FILE       # PPCA-DP-MH owner statistics, one pass, all cores
//	go run scale.go synthesize ARGS # `dppub synthesize ARGS` in this process (CPUPROFILE)
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/dppub/dppub/cmd/dppub/cli"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method/ppcadpmh/ppca"
	"github.com/dppub/dppub/randx"
)

func main() {
	if p := os.Getenv("CPUPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		n, _ := strconv.Atoi(os.Args[2])
		err = gen(n, os.Args[3], os.Args[4])
	case "split":
		err = split(os.Args[2])
	case "ppca":
		err = moments(os.Args[2])
	case "schema":
		err = schemaJSON(os.Args[2])
	case "synthesize":
		// The command itself, in this process so that CPUPROFILE covers it.
		if rc := cli.Main(os.Args[2:], os.Stdout, os.Stderr); rc != 0 {
			err = fmt.Errorf("synthesize exited with %d", rc)
		}
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func gen(n int, src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	var lines [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 && !bytes.Contains(l, []byte("?")) {
			lines = append(lines, l)
		}
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	// A header row, which `dppub synthesize --input` needs (the line
	// itself, not the resampled records, is all that changes).
	schema, err := datasets.Schema("adult")
	if err != nil {
		return err
	}
	w.WriteString(strings.Join(schema.Names(), ",") + "\n")
	r := randx.NewSeeded(uint64(n))
	for range n {
		w.Write(lines[r.IntN(len(lines))])
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func schemaJSON(dst string) error {
	s, err := datasets.Schema("adult")
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(dst, append(b, '\n'), 0o644)
}

// openLines opens path for reading line by line, lines up to 1 MiB (the
// generated files' lines are short; the buffer only bounds a bad one).
func openLines(path string) (*os.File, *bufio.Scanner, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return f, sc, nil
}

// split is the peer: the least a reader must do (read every line, find
// every field).
func split(path string) error {
	f, sc, err := openLines(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fields, rows := 0, 0
	for sc.Scan() {
		rows++
		fields += len(strings.Split(sc.Text(), ","))
	}
	fmt.Println("rows", rows, "fields", fields)
	return sc.Err()
}

// moments reads lines in one goroutine and parses, encodes and sums them
// on every core (data.LineParser, data.RowEncoder, ppca.Moments), merged
// exactly: memory is a few batches of lines plus p(p+3)/2 128-bit sums.
func moments(path string) error {
	schema, err := datasets.Schema("adult")
	if err != nil {
		return err
	}
	enc, err := data.NewEncoder(schema, data.EncoderOptions{})
	if err != nil {
		return err
	}
	f, sc, err := openLines(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if !sc.Scan() {
		return fmt.Errorf("%s is empty", path)
	}
	first := sc.Text()
	batches := make(chan []string, 4)
	workers := runtime.GOMAXPROCS(0)
	parts := make([]*ppca.Moments, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lp, err := data.NewLineParser(schema, data.ReadOptions{Header: true}, first)
			re, err2 := enc.RowEncoder(schema)
			if err != nil || err2 != nil {
				errs[w] = fmt.Errorf("%v %v", err, err2)
				return
			}
			m := ppca.NewMoments(enc.Dim())
			row := make([]float64, len(schema.Attributes))
			var idx []int
			var val []float64
			for b := range batches {
				for _, l := range b {
					r, ok, err := lp.Parse(l, row)
					if err != nil {
						errs[w] = err
						return
					}
					if !ok {
						continue
					}
					if idx, val, _, err = re.Sparse(r, idx[:0], val[:0]); err != nil {
						errs[w] = err
						return
					}
					m.AddSparse(idx, val)
				}
			}
			parts[w] = m
		}()
	}
	batch := []string{first}
	for sc.Scan() {
		batch = append(batch, sc.Text())
		if len(batch) == 4096 {
			batches <- batch
			batch = make([]string, 0, 4096)
		}
	}
	batches <- batch
	close(batches)
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	total := parts[0]
	for _, m := range parts[1:] {
		total.Merge(m)
	}
	fmt.Println("rows", total.N, "p", total.P, "Σx[0]", total.Packed()[0])
	return sc.Err()
}
