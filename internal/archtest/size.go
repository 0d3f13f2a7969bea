package archtest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// Size limits of issue 36's habits: a function longer than MaxFuncLines
// (a test function: MaxTestFuncLines, its tables often read best inline)
// is split, and a file longer than MaxFileLines says why it is long in a
// comment starting with LongFileMark (e.g. "// Long file: the view audit's
// five experiments share one fixture and read best in one place.").
const (
	MaxFuncLines     = 80
	MaxTestFuncLines = 100
	MaxFileLines     = 600
	LongFileMark     = "// Long file:"
)

// SizeViolations reports, for one Go source file, each function or
// method longer than its limit (MaxFuncLines, MaxTestFuncLines in a test
// file) from its signature to its closing brace, and the file itself when
// it is longer than MaxFileLines lines and carries no LongFileMark comment.
// Generated files (a "Code generated ... DO NOT EDIT." line) are exempt.
func SizeViolations(name string, src []byte) ([]string, error) {
	if generated(src) {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("archtest: %w", err)
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		if limit := funcLimit(name); lines > limit {
			out = append(out, fmt.Sprintf("%s: func %s is %d lines (at most %d)", name, funcName(fn), lines, limit))
		}
	}
	if n := bytes.Count(src, []byte("\n")); n > MaxFileLines && !bytes.Contains(src, []byte(LongFileMark)) {
		out = append(out, fmt.Sprintf("%s: %d lines (at most %d without a %q comment that says why)", name, n, MaxFileLines, LongFileMark))
	}
	return out, nil
}

func funcLimit(file string) int {
	if strings.HasSuffix(file, "_test.go") {
		return MaxTestFuncLines
	}
	return MaxFuncLines
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if g, ok := t.(*ast.IndexExpr); ok {
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

func generated(src []byte) bool {
	for _, line := range strings.SplitN(string(src[:min(len(src), 4096)]), "\n", 40) {
		if strings.HasPrefix(line, "// Code generated ") && strings.HasSuffix(strings.TrimSpace(line), "DO NOT EDIT.") {
			return true
		}
	}
	return false
}
