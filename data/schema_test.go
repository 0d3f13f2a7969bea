package data

import (
	"encoding/json"
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
		`{"attributes":[{"name":"a","kind":"numeric","min":0}]}`:                          `"max"`,
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"mx":1}]}`:                   "unknown field",
		`{"attributes":[{"name":"a","kind":"numeric","min":2,"max":1}]}`:                  "min < max",
		`{"attributes":[{"name":"a","kind":"nominal"}]}`:                                  `"nominal"`,
		`{"attributes":[{"name":"a","kind":"categorical"}]}`:                              "no categories",
		`{"attributes":[{"name":"a","kind":"categorical","categories":["x","x"]}]}`:       `"x" twice`,
		`{"attributes":[{"name":"a","kind":"binary","categories":["x","y","z"]}]}`:        "exactly 2",
		`{"attributes":[{"name":"a","kind":"categorical","categories":["x"],"min":0}]}`:   `must not have "min"`,
		`{"attributes":[{"name":"a","kind":"binary"},{"name":"a","kind":"binary"}]}`:      `"a" used twice`,
		`{"id":"a","attributes":[{"name":"a","kind":"binary"}]}`:                          `"a" used twice`,
		`{"attributes":[{"name":"a","kind":"numeric","min":0,"max":1.5,"integer":true}]}`: "non-integer bounds",
		`{"attributes":[{"name":"","kind":"binary"}]}`:                                    "bad attribute name",
		`{"attributes":[{"name":"a","kind":"binary"}]} {}`:                                "trailing data",
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
