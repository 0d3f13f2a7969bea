package archtest

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Layer is one row of the architecture table: the packages it names
// (relative to the module; a trailing "/..." names a subtree, a "*" one
// path element, as in `method/*/roles`) and its position, 0 for the first
// (lowest) row.
type Layer struct {
	Rank     int
	Patterns []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// ParseLayers reads the rows of the first Markdown table whose header has a
// "package" column: every backticked name in that column is a package
// pattern of the row.
func ParseLayers(r io.Reader) ([]Layer, error) {
	col := -1
	var out []Layer
	header := func(cells []string) bool {
		col = slices.Index(cells, "package")
		return col >= 0
	}
	err := scanTable(r, header, func(line string, cells []string) (bool, error) {
		if col >= len(cells) {
			return false, nil
		}
		var pats []string
		for _, m := range backticked.FindAllStringSubmatch(cells[col], -1) {
			pats = append(pats, m[1])
		}
		if len(pats) == 0 {
			return false, fmt.Errorf("archtest: table row %q names no package", line)
		}
		out = append(out, Layer{Rank: len(out), Patterns: pats})
		return true, nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("archtest: no table with a \"package\" column")
	}
	return out, err
}

// scanTable hands row every body row (its line and cells) of the first
// Markdown table of r whose header row header accepts and of which row
// keeps at least one row; a table of which it keeps none does not count,
// and the scan goes on to the next.
func scanTable(r io.Reader, header func(cells []string) bool, row func(line string, cells []string) (bool, error)) error {
	sc := bufio.NewScanner(r)
	in, kept := false, 0
	for sc.Scan() {
		cells := tableCells(sc.Text())
		switch {
		case cells == nil:
			if in && kept > 0 {
				return nil
			}
			in = false
		case !in:
			in = header(cells)
		case strings.Trim(cells[0], "-: ") == "":
			// the separator row
		default:
			ok, err := row(sc.Text(), cells)
			if err != nil {
				return err
			}
			if ok {
				kept++
			}
		}
	}
	return sc.Err()
}

func tableCells(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return nil
	}
	parts := strings.Split(strings.Trim(line, "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// rank returns the row of pkg: an exact name beats a pattern with "*",
// which beats a subtree pattern, a longer subtree beats a shorter one; -1
// when no row names it.
func rank(layers []Layer, pkg string) int {
	best, bestLen := -1, -1
	for _, l := range layers {
		for _, p := range l.Patterns {
			n := -1
			switch {
			case p == pkg:
				n = 1 << 20
			case strings.Contains(p, "*") && globMatch(p, pkg):
				n = 1 << 19
			case strings.HasSuffix(p, "/...") && (pkg == strings.TrimSuffix(p, "/...") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "..."))):
				n = len(p)
			}
			if n > bestLen {
				best, bestLen = l.Rank, n
			}
		}
	}
	return best
}

// Violations lists every package of graph (package → its imports, both
// relative to the module) that no row names, and every import of a package
// listed in a later row than the importer.
func Violations(layers []Layer, graph map[string][]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(graph)) {
		rp := rank(layers, p)
		if rp < 0 {
			out = append(out, fmt.Sprintf("%s is in no row of the table", p))
			continue
		}
		for _, imp := range graph[p] {
			if ri := rank(layers, imp); ri > rp {
				out = append(out, fmt.Sprintf("%s (row %d) imports %s (row %d)", p, rp+1, imp, ri+1))
			}
		}
	}
	return out
}

func globMatch(pattern, pkg string) bool {
	ok, err := path.Match(pattern, pkg)
	return err == nil && ok
}

// MethodRoot is the folder that holds one folder per method.
const MethodRoot = "method"

// methodOf returns the method whose folder holds pkg ("ppcadpmh" for
// method/ppcadpmh/roles), or "" for a package outside every method's
// folder (method itself, and method/registry, which lists them all).
func methodOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, MethodRoot+"/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if name == "registry" {
		return ""
	}
	return name
}

// MethodViolations lists every import from one method's folder into
// another's that bases (method → the methods it builds on) does not
// declare: a method is one room, and its neighbours are not its
// foundations unless the architecture says so.
func MethodViolations(bases map[string][]string, graph map[string][]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(graph)) {
		m := methodOf(p)
		if m == "" {
			continue
		}
		for _, imp := range graph[p] {
			if o := methodOf(imp); o != "" && o != m && !slices.Contains(bases[m], o) {
				out = append(out, fmt.Sprintf("%s imports %s: method %s does not declare %s as its base", p, imp, m, o))
			}
		}
	}
	return out
}

// ParseBases reads the table whose header has a "method" and a "bases"
// column: every backticked name in the bases cell is a method the row's
// method may import.
func ParseBases(r io.Reader) (map[string][]string, error) {
	return parseDeclarations(r, "method", "bases")
}

// parseDeclarations reads the first Markdown table whose header has a key
// and a values column: each row's first backticked name in the key cell
// maps to every backticked name of its values cell.
func parseDeclarations(r io.Reader, key, values string) (map[string][]string, error) {
	kcol, vcol := -1, -1
	out := map[string][]string{}
	header := func(cells []string) bool {
		kcol, vcol = slices.Index(cells, key), slices.Index(cells, values)
		return kcol >= 0 && vcol >= 0
	}
	err := scanTable(r, header, func(line string, cells []string) (bool, error) {
		if kcol >= len(cells) || vcol >= len(cells) {
			return false, nil
		}
		k := backticked.FindStringSubmatch(cells[kcol])
		if k == nil {
			return false, fmt.Errorf("archtest: %s row %q names no %s", values, line, key)
		}
		vs := backticked.FindAllStringSubmatch(cells[vcol], -1)
		for _, v := range vs {
			out[k[1]] = append(out[k[1]], v[1])
		}
		return len(vs) > 0, nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("archtest: no table with %q and %q columns", key, values)
	}
	return out, err
}

// frameworkRegistries are the packages outside every method's folder that
// may import any of them: they are the lists of methods, experiments,
// audits and hand-written method commands, and knowing every method is
// what they are for.
var frameworkRegistries = []string{"method/registry", "audit/catalog", "eval/all", "cmd/dppub/commands"}

// FrameworkViolations lists every import of a package in a method's folder
// (method/<name>/...) by a package outside every method's folder that is
// neither one of the registries nor declared (importer → the method
// packages it may import): a framework knows a method through its spec and
// capability interfaces, and what still reaches further is written down.
func FrameworkViolations(declared map[string][]string, graph map[string][]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(graph)) {
		if methodOf(p) != "" || slices.Contains(frameworkRegistries, p) {
			continue
		}
		for _, imp := range graph[p] {
			if methodOf(imp) != "" && !slices.Contains(declared[p], imp) {
				out = append(out, fmt.Sprintf("%s imports %s: only the registries may, unless the table of framework imports declares it", p, imp))
			}
		}
	}
	return out
}

// ParseFrameworkImports reads the table whose header has an "importer" and
// a "method package" column: the row's importer may import every
// backticked package of its method-package cell.
func ParseFrameworkImports(r io.Reader) (map[string][]string, error) {
	return parseDeclarations(r, "importer", "method package")
}

// StaleFrameworkImports lists every declared framework import the graph no
// longer has, so the table shrinks when an import goes.
func StaleFrameworkImports(declared map[string][]string, graph map[string][]string) []string {
	var out []string
	for _, p := range slices.Sorted(maps.Keys(declared)) {
		for _, m := range declared[p] {
			if !slices.Contains(graph[p], m) {
				out = append(out, fmt.Sprintf("%s no longer imports %s: remove the row from the table of framework imports", p, m))
			}
		}
	}
	return out
}
