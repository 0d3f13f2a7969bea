package ownerstats

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/dppub/dppub/data"
)

// Scan, one pass over the text on several workers, gives exactly the
// statistics FromTable gives on the table read from the same text, plain
// and fine, gzip or not, whatever the workers and the block size.
func TestScanEqualsFromTable(t *testing.T) {
	n := 45222 // all of Adult
	if testing.Short() {
		n = 6000
	}
	tab := head(t, "adult", n)
	var csv bytes.Buffer
	if err := data.WriteCSV(&csv, tab); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(csv.Bytes())
	zw.Close()
	read := data.ReadOptions{Header: true}
	skip := data.ReadOptions{Header: true, SkipColumns: []string{"fnlwgt"}}
	for _, c := range []Config{
		{Schema: tab.Schema, Read: read},
		{Schema: tab.Schema, Read: read, Bins: 8, BinsFor: map[string]int{"age": 5}},
		{Schema: tab.Schema, Read: read, Fine: true},
		{Schema: tab.Schema, Read: read, Fine: true, Grid: 64, Bins: 10},
		{Schema: tab.Schema, Read: skip, Fine: true},
	} {
		// The table the core reads from the same text, with the same
		// options (less the skipped columns: its schema is the owner's).
		back, _, err := data.ReadCSV(bytes.NewReader(csv.Bytes()), tab.Schema, c.Read)
		if err != nil {
			t.Fatal(err)
		}
		tc := c
		tc.Schema = back.Schema
		want, err := FromTable(back, tc)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []struct {
			name string
			text []byte
		}{{"csv", csv.Bytes()}, {"gzip", gz.Bytes()}} {
			for _, o := range []data.ScanOptions{{Workers: 1}, {Workers: 2, Block: 4096}, {Workers: 3, Block: 100}, {}} {
				t.Run(fmt.Sprintf("fine=%v/bins=%d/skip=%v/%s/workers=%d/block=%d", c.Fine, c.Bins, c.Read.SkipColumns, in.name, o.Workers, o.Block), func(t *testing.T) {
					got, st, err := Scan(bytes.NewReader(in.text), c, o)
					if err != nil {
						t.Fatal(err)
					}
					if st.Rows != back.Len() {
						t.Fatalf("read %d rows, want %d", st.Rows, back.Len())
					}
					if !got.Equal(want) {
						t.Fatal("the scanned statistics differ from FromTable's")
					}
				})
			}
		}
	}
}

func TestScanRefuses(t *testing.T) {
	tab := head(t, "adult", 50)
	for _, c := range []struct {
		name, text, want string
		conf             Config
	}{
		{"empty", "", "empty", Config{Schema: tab.Schema, Read: data.ReadOptions{Header: true}}},
		{"bad grid", "x\n", "grid", Config{Schema: tab.Schema, Fine: true, Grid: 1}},
		{"header lacks a column", "age\n1\n", `"workclass"`, Config{Schema: tab.Schema, Read: data.ReadOptions{Header: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Scan(strings.NewReader(c.text), c.conf, data.ScanOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestConfigFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want Config
		err  string
	}{
		{nil, Config{}, ""},
		{[]string{"--bins", "8", "--bins-for", "age=5, hours-per-week=3"}, Config{Bins: 8, BinsFor: map[string]int{"age": 5, "hours-per-week": 3}}, ""},
		{[]string{"--fine", "--grid", "64"}, Config{Fine: true, Grid: 64}, ""},
		{[]string{"--grid", "64"}, Config{}, "--grid 64 is for --fine"},
		{[]string{"--fine", "--grid", "1"}, Config{}, "at least 2"},
		{[]string{"--bins", "-1"}, Config{}, "--bins must be positive"},
		{[]string{"--bins-for", "age"}, Config{}, `"age"`},
		{[]string{"--bins-for", "age=0"}, Config{}, `"age=0"`},
		{[]string{"--bins-for", "age=2,age=3"}, Config{}, `names "age" twice`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			var f ConfigFlags
			f.Register(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			var got Config
			err := f.Apply(&got)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err = %v, want it to mention %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err == "" && (got.Bins != c.want.Bins || got.Fine != c.want.Fine || got.Grid != c.want.Grid || fmt.Sprint(got.BinsFor) != fmt.Sprint(c.want.BinsFor)):
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// Scan's workers count in 32-bit counters and move them into the
// statistics before any could wrap: with that limit set to a few records
// (a move before every block), the statistics are still FromTable's.
func TestScanFlushes32BitCounts(t *testing.T) {
	tab := head(t, "adult", 3000)
	var csv bytes.Buffer
	if err := data.WriteCSV(&csv, tab); err != nil {
		t.Fatal(err)
	}
	c := Config{Schema: tab.Schema, Read: data.ReadOptions{Header: true}}
	want, err := FromTable(tab, c)
	if err != nil {
		t.Fatal(err)
	}
	defer func(m uint64) { maxRows32 = m }(maxRows32)
	for _, limit := range []uint64{1, 7, 1 << 32} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			maxRows32 = limit
			got, _, err := Scan(bytes.NewReader(csv.Bytes()), c, data.ScanOptions{Workers: 2, Block: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) {
				t.Fatal("the scanned statistics differ from FromTable's")
			}
		})
	}
}
