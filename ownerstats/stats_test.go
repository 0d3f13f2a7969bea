package ownerstats

import (
	"testing"

	"github.com/dppub/dppub/datasets"
)

// The record-by-record path a distributed pipeline takes (the Config
// shipped as JSON, each worker adding its records to its own statistics,
// the workers' statistics merged in any order) gives exactly the bits of
// the in-process path, FromTable; the file format round-trips them.
func TestRecordByRecordEqualsInProcess(t *testing.T) {
	tab, err := datasets.Load("wdbc")
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Schema: tab.Schema, Bins: 8}
	js, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := ParseConfig(js)
	if err != nil {
		t.Fatal(err)
	}
	want, err := FromTable(tab, shipped)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := shipped.NewEncoders()
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3, 7} {
		parts := make([]*Statistics, workers)
		for w := range parts {
			parts[w] = enc.New()
		}
		var sc Scratch
		for i, row := range tab.Rows {
			if err := enc.Add(parts[(i*31)%workers], row, &sc); err != nil {
				t.Fatal(err)
			}
		}
		got := enc.New()
		for w := workers - 1; w >= 0; w-- { // merged in reverse order
			if err := got.Merge(parts[w]); err != nil {
				t.Fatal(err)
			}
		}
		if !got.Equal(want) {
			t.Fatalf("%d workers: the record-by-record statistics differ from the in-process ones", workers)
		}
	}
	b, err := want.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Statistics
	if err := back.UnmarshalBinary(b); err != nil || !back.Equal(want) {
		t.Fatalf("file round trip: %v", err)
	}
	if _, err := ParseConfig([]byte(`{"Schema": 3}`)); err == nil {
		t.Fatal("a malformed configuration was accepted")
	}
}
