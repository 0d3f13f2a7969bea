package data

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const personJSON = `{"id": "pid", "attributes": [
  {"name": "age", "kind": "numeric", "min": 0, "max": 100, "integer": true},
  {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
  {"name": "x", "kind": "binary", "categories": ["0", "1"]},
  {"name": "color", "kind": "categorical", "categories": ["red", "green", "blue"]},
  {"name": "w", "kind": "numeric", "min": -1, "max": 1}
]}`

func personSchema(t *testing.T) Schema {
	t.Helper()
	s, err := ParseSchema([]byte(personJSON))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseSchema(t *testing.T) {
	s := personSchema(t)
	if s.ID != "pid" || len(s.Attributes) != 5 {
		t.Fatalf("parsed %+v", s)
	}
	want := Attribute{Name: "age", Kind: Numeric, Min: 0, Max: 100, Integer: true}
	if !s.Attributes[0].Equal(want) {
		t.Fatalf("age = %+v", s.Attributes[0])
	}
	if got := strings.Join(s.Names(), ","); got != "age,sex,x,color,w" {
		t.Fatalf("Names = %s", got)
	}
	if i, err := s.Index("color"); err != nil || i != 3 {
		t.Fatalf("Index(color) = %d, %v", i, err)
	}
	if _, err := s.Index("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Index(nope) error %v does not quote the name", err)
	}
}

func TestSchemaJSONRoundTrip(t *testing.T) {
	s := personSchema(t)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Schema
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Equal(s) {
		t.Fatalf("round trip changed the schema:\n%s", b)
	}
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadSchema(path)
	if err != nil || !loaded.Equal(s) {
		t.Fatalf("LoadSchema = %+v, %v", loaded, err)
	}
}

func TestBinaryDefaultCategories(t *testing.T) {
	s, err := ParseSchema([]byte(`{"attributes":[{"name":"b","kind":"binary"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Attributes[0].Categories, ","); got != "0,1" {
		t.Fatalf("default binary categories %s", got)
	}
}

func TestParseSchemaErrors(t *testing.T) {
	cases := map[string]string{
		`{"attributes":[]}`: "no attributes",
		`{"attributes":[{"name":"a","kind":"numeric","min":0}]}`:                                     `"max"`,
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"mx":1}]}`:                              "unknown field",
		`{"attributes":[{"name":"a","kind":"numeric","min":2,"max":1}]}`:                             "min < max",
		`{"attributes":[{"name":"a","kind":"nominal"}]}`:                                             `"nominal"`,
		`{"attributes":[{"name":"a","kind":"categorical"}]}`:                                         "no categories",
		`{"attributes":[{"name":"a","kind":"categorical","categories":["x","x"]}]}`:                  `"x" twice`,
		`{"attributes":[{"name":"a","kind":"binary","categories":["x","y","z"]}]}`:                   "exactly 2",
		`{"attributes":[{"name":"a","kind":"categorical","categories":["x"],"min":0}]}`:              `must not have "min"`,
		`{"attributes":[{"name":"a","kind":"binary"},{"name":"a","kind":"binary"}]}`:                 `"a" used twice`,
		`{"id":"a","attributes":[{"name":"a","kind":"binary"}]}`:                                     `"a" used twice`,
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":1.5,"integer":true}]}`:            "non-integer bounds",
		`{"attributes":[{"name":"","kind":"binary"}]}`:                                               "bad attribute name",
		`{"attributes":[{"name":"a","kind":"binary"}]} {}`:                                           "trailing data",
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":1,"decimals":0}]}`:                "at least 1",
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":1,"decimals":16}]}`:               "decimals 16",
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":9,"integer":true,"decimals":2}]}`: "not set on an integer",
		`{"attributes":[{"name":"a","kind":"binary","decimals":2}]}`:                                 "decimals",
		`{"label":"b","attributes":[{"name":"a","kind":"binary"}]}`:                                  `unknown attribute "b"`,
		`{"label":"a","attributes":[{"name":"a","kind":"numeric","min":0,"max":1}]}`:                 `label "a" is numeric`,
		`{"attributes":[{"name":"a","kind":"categorical","categories":["x"],"other":"y"}]}`:          `other category "y"`,
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":1,"other":"y"}]}`:                 "other category",
	}
	for in, want := range cases {
		if _, err := ParseSchema([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSchema(%s) error %v, want it to mention %s", in, err, want)
		}
	}
}

func TestSchemaSelect(t *testing.T) {
	s := personSchema(t)
	sub, err := s.Select("color", "age")
	if err != nil {
		t.Fatal(err)
	}
	if sub.ID != "pid" || strings.Join(sub.Names(), ",") != "color,age" {
		t.Fatalf("Select = %+v", sub)
	}
	sub.Attributes[0].Categories[0] = "changed"
	if s.Attributes[3].Categories[0] != "red" {
		t.Fatal("Select shares the categories slice")
	}
	if _, err := s.Select("age", "age"); err == nil {
		t.Fatal("duplicate selection accepted")
	}
	if _, err := s.Select("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("Select(nope) error %v", err)
	}
}

func TestKindString(t *testing.T) {
	if Numeric.String() != "numeric" || Categorical.String() != "categorical" || Binary.String() != "binary" || Kind(9).String() != "Kind(9)" {
		t.Fatal("Kind.String wrong")
	}
}

func TestSchemaLabelDecimalsOtherRoundTrip(t *testing.T) {
	in := `{"label":"sex","attributes":[
	  {"name":"w","kind":"numeric","min":-1,"max":1,"decimals":3},
	  {"name":"sex","kind":"categorical","categories":["F","M","other"],"other":"other"}]}`
	s, err := ParseSchema([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Label != "sex" || s.Attributes[0].Decimals != 3 || s.Attributes[1].Other != "other" {
		t.Fatalf("parsed %+v", s)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSchema(b)
	if err != nil || !back.Equal(s) || back.Label != "sex" {
		t.Fatalf("round trip: %+v, %v\n%s", back, err, b)
	}
	if sub, _ := s.Select("w"); sub.Label != "" {
		t.Fatalf("Select without the label kept label %q", sub.Label)
	}
	if sub, _ := s.Select("sex"); sub.Label != "sex" {
		t.Fatalf("Select with the label lost it: %q", sub.Label)
	}
}

// A draft is refused by every entry point with one line naming the file
// and what to do; its null placeholders are written back as null.
func TestDraftRefused(t *testing.T) {
	draft := Schema{Draft: true, Attributes: []Attribute{{Name: "age", Kind: Numeric, Min: math.NaN(), Max: math.NaN(), Integer: true}}}
	b, err := json.Marshal(draft)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"min":null`) || !strings.Contains(string(b), `"draft":true`) {
		t.Fatalf("draft written as %s", b)
	}
	if _, err := ParseSchema(b); !errors.Is(err, ErrDraft) {
		t.Fatalf("ParseSchema(draft) = %v, want ErrDraft", err)
	}
	path := filepath.Join(t.TempDir(), "draft.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadSchema(path)
	if !errors.Is(err, ErrDraft) || !strings.Contains(err.Error(), `delete the line "draft": true`) ||
		!strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("LoadSchema(draft) = %v", err)
	}
	if err := draft.Validate(); !errors.Is(err, ErrDraft) {
		t.Fatalf("Validate(draft) = %v", err)
	}
}
