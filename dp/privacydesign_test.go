package dp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// designDoc is the mechanism table's document, from this package's
// directory.
const designDoc = "../docs/privacy-design.md"

// mechanismEntryPoints lists, from this package's source, every exported
// entry point that draws noise on a value or makes a private choice: the
// functions that take a *randx.Source and return a choice (not
// NewNoiser, which only wraps one), the Noiser methods that release or
// share noise, and the mechanism types with a Release method. Named as
// the table names them: dp.X for functions and types, Noiser.X for
// methods.
func mechanismEntryPoints(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			name := fn.Name.Name
			if fn.Recv == nil {
				if takesSource(fn) && fn.Type.Results != nil && name != "NewNoiser" {
					names = append(names, "dp."+name)
				}
				continue
			}
			recv := receiverType(fn)
			switch {
			case recv == "Noiser" && (strings.HasPrefix(name, "Release") || name == "Shares"):
				names = append(names, "Noiser."+name)
			case recv != "Noiser" && name == "Release":
				names = append(names, "dp."+recv)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func takesSource(fn *ast.FuncDecl) bool {
	for _, p := range fn.Type.Params.List {
		if star, ok := p.Type.(*ast.StarExpr); ok {
			if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Source" {
				return true
			}
		}
	}
	return false
}

func receiverType(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// documentedMechanisms returns the dp names (`dp.X`, `Noiser.X`) in the
// code column of privacy-design.md's mechanism table.
func documentedMechanisms(t *testing.T) []string {
	t.Helper()
	body, err := os.ReadFile(designDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(body), "## Every mechanism")
	if !ok {
		t.Fatalf("%s has no \"## Every mechanism\" section", designDoc)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	name := regexp.MustCompile("`((?:dp|Noiser)\\.[A-Za-z]+)`")
	var names []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// The mechanism table of docs/privacy-design.md names exactly the
// package's mechanisms: one added to dp without a row, or a row left
// for one removed or renamed, fails here.
func TestPrivacyDesignTableMatchesMechanisms(t *testing.T) {
	code, doc := mechanismEntryPoints(t), documentedMechanisms(t)
	if len(code) < 5 {
		t.Fatalf("found only %v in dp's source: the scan is broken", code)
	}
	for _, n := range code {
		if !slices.Contains(doc, n) {
			t.Errorf("%s draws noise or makes a private choice but has no row in %s's mechanism table", n, designDoc)
		}
	}
	for _, n := range doc {
		if !slices.Contains(code, n) {
			t.Errorf("%s's mechanism table names %s, which dp does not export as a mechanism", designDoc, n)
		}
	}
}
