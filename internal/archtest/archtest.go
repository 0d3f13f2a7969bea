package archtest

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Layer is one row of the architecture table: the packages it names
// (relative to the module; a trailing "/..." names a subtree) and its
// position, 0 for the first (lowest) row.
type Layer struct {
	Rank     int
	Patterns []string
}

var backticked = regexp.MustCompile("`([^`]+)`")

// ParseLayers reads the rows of the first Markdown table whose header has a
// "package" column: every backticked name in that column is a package
// pattern of the row.
func ParseLayers(r io.Reader) ([]Layer, error) {
	sc := bufio.NewScanner(r)
	col := -1
	var out []Layer
	for sc.Scan() {
		cells := tableCells(sc.Text())
		switch {
		case cells == nil:
			if col >= 0 && len(out) > 0 {
				return out, nil
			}
		case col < 0:
			col = slices.Index(cells, "package")
		case strings.Trim(cells[0], "-: ") == "":
			// the separator row
		case col < len(cells):
			var pats []string
			for _, m := range backticked.FindAllStringSubmatch(cells[col], -1) {
				pats = append(pats, m[1])
			}
			if len(pats) == 0 {
				return nil, fmt.Errorf("archtest: table row %q names no package", sc.Text())
			}
			out = append(out, Layer{Rank: len(out), Patterns: pats})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("archtest: no table with a \"package\" column")
	}
	return out, sc.Err()
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

// rank returns the row of pkg: an exact name beats a subtree pattern, a
// longer subtree beats a shorter one; -1 when no row names it.
func rank(layers []Layer, pkg string) int {
	best, bestLen := -1, -1
	for _, l := range layers {
		for _, p := range l.Patterns {
			n := -1
			switch {
			case p == pkg:
				n = 1 << 20
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
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
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
