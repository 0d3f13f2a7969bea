package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/dppub/dppub"

// TestArchitectureIsTrue fails on any import against the layers of
// docs/ARCHITECTURE.md, on any package the table does not list, on an
// import between two methods' folders the bases table does not declare,
// and on a framework's import of a method's folder that the table of
// framework imports does not declare (or that it declares in vain).
func TestArchitectureIsTrue(t *testing.T) {
	root, doc := repoDoc(t, "ARCHITECTURE.md")
	layers := parseDoc(t, doc, ParseLayers)
	bases := parseDoc(t, doc, ParseBases)
	declared := parseDoc(t, doc, ParseFrameworkImports)
	graph := importGraph(t, root)
	if len(graph) < 10 {
		t.Fatalf("go list found only %d packages", len(graph))
	}
	for _, check := range [][]string{
		Violations(layers, graph),
		MethodViolations(bases, graph),
		FrameworkViolations(declared, graph),
		StaleFrameworkImports(declared, graph),
	} {
		for _, v := range check {
			t.Error(v)
		}
	}
}

// repoDoc is the module's root (two levels above this package) and its
// document docs/<name>, which the tests check the code against.
func repoDoc(t *testing.T, name string) (root string, doc []byte) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err = os.ReadFile(filepath.Join(root, "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return root, doc
}

// parseDoc reads one of the architecture document's tables with parse.
func parseDoc[T any](t *testing.T, doc []byte, parse func(io.Reader) (T, error)) T {
	t.Helper()
	v, err := parse(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// importGraph runs `go list -json ./...` in root and keeps the module's own
// packages and their non-test imports of the module.
func importGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v: %s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		rel := relative(p.ImportPath)
		graph[rel] = nil
		for _, imp := range p.Imports {
			if r := relative(imp); r != imp {
				graph[rel] = append(graph[rel], r)
			}
		}
	}
	return graph
}

func relative(pkg string) string {
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

// TestViolationsCatchAPlantedImport shows the check can fail: a primitive
// importing a pipeline, and a package no row lists.
func TestViolationsCatchAPlantedImport(t *testing.T) {
	layers, err := ParseLayers(strings.NewReader("| layer | package | concern |\n|---|---|---|\n| p | `dp`, `randx` | x |\n| a | `algo/...` | y |\n| r | `method/*/roles` | w |\n| m | `method/...` | v |\n| c | `publish` | z |\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkGraphs(t, func(g map[string][]string) []string { return Violations(layers, g) }, []graphCase{
		{"downwards only", map[string][]string{"dp": {"randx"}, "algo/ppca": {"dp"}, "publish": {"algo/ppca", "dp"}}, 0},
		{"planted upward import", map[string][]string{"dp": {"publish"}, "publish": nil}, 1},
		{"unlisted package", map[string][]string{"utility": {"dp"}, "dp": nil}, 1},
		{"roles below their method", map[string][]string{"method/a": {"method/a/roles"}, "method/a/roles": {"dp"}}, 0},
		{"roles importing their method", map[string][]string{"method/a/roles": {"method/a"}, "method/a": nil}, 1},
	})
}

// graphCase is an import graph (package → its imports) and how many
// violations a check must find in it.
type graphCase struct {
	name  string
	graph map[string][]string
	want  int
}

// checkGraphs runs check on each case's graph.
func checkGraphs(t *testing.T, check func(map[string][]string) []string, cases []graphCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := check(c.graph); len(got) != c.want {
				t.Fatalf("violations %q, want %d", got, c.want)
			}
		})
	}
}

// TestMethodViolationsCatchAPlantedImport shows the room rule can fail: a
// method importing another's roles is caught unless that one is its
// declared base; the registry may import every method.
func TestMethodViolationsCatchAPlantedImport(t *testing.T) {
	bases, err := ParseBases(strings.NewReader("| method | bases |\n|---|---|\n| `b` | `a` |\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkGraphs(t, func(g map[string][]string) []string { return MethodViolations(bases, g) }, []graphCase{
		{"own room", map[string][]string{"method/a": {"method/a/roles", "method"}}, 0},
		{"declared base", map[string][]string{"method/b": {"method/a"}}, 0},
		{"planted neighbour", map[string][]string{"method/a/roles": {"method/b/roles"}}, 1},
		{"registry", map[string][]string{"method/registry": {"method/a", "method/b"}}, 0},
	})
}

// TestFrameworkViolationsCatchAPlantedImport shows the framework rule can
// fail: a framework importing a method's package is caught unless it is a
// registry or the table declares that very import; a declaration no import
// needs any more is caught too, so the table only shrinks with the code.
func TestFrameworkViolationsCatchAPlantedImport(t *testing.T) {
	declared, err := ParseFrameworkImports(strings.NewReader("| importer | method package | why |\n|---|---|---|\n| `cli` | `method/a`, `method/a/roles` | its command |\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkGraphs(t, func(g map[string][]string) []string { return FrameworkViolations(declared, g) }, []graphCase{
		{"spec and registry only", map[string][]string{"cli": {"method", "method/registry"}, "transport": {"method"}}, 0},
		{"registries", map[string][]string{"method/registry": {"method/a"}, "audit/catalog": {"method/a/audits"}, "eval/all": {"method/b/figures"}, "cmd/dppub/commands": {"method/a/cli"}}, 0},
		{"planted method command outside the list", map[string][]string{"cmd/dppub/cli": {"method/b/cli"}}, 1},
		{"declared", map[string][]string{"cli": {"method/a", "method/a/roles"}}, 0},
		{"planted undeclared package of a declared method", map[string][]string{"cli": {"method/a", "method/a/maths"}}, 1},
		{"planted undeclared importer", map[string][]string{"transport": {"method/a"}, "ownerstats": {"method/b/maths"}}, 2},
		{"methods among themselves are the room rule's", map[string][]string{"method/b": {"method/a"}}, 0},
	})
	checkGraphs(t, func(g map[string][]string) []string { return StaleFrameworkImports(declared, g) }, []graphCase{
		{"every declaration used", map[string][]string{"cli": {"method/a", "method/a/roles"}}, 0},
		{"a declaration left behind", map[string][]string{"cli": {"method/a"}}, 1},
	})
}
