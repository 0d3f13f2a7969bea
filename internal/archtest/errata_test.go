package archtest

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// notesCitation matches a citation of the project's working notes on the
// papers (../shared/papers/NOTES.md), which live outside the repository:
// the code must cite docs/errata.md by anchor instead.
var notesCitation = regexp.MustCompile(`NOTES(\.md)? §`)

// errataCitation matches a citation of a section of docs/errata.md.
var errataCitation = regexp.MustCompile(`docs/errata\.md#([\w-]+)`)

// pendingCitation is a notes citation the test tolerates for now: the
// snippet is part of a string literal (runtime output, not a comment), so
// replacing it is a code change. An entry that no longer matches is
// reported as stale, so the list can only shrink.
type pendingCitation struct{ path, snippet string }

var pendingCitations []pendingCitation

// TestCodeCitesErrataNotNotes fails on any .go file of the module that
// cites the working notes outside the repository, and on any citation of
// docs/errata.md whose anchor names no heading of that file.
func TestCodeCitesErrataNotNotes(t *testing.T) {
	root, errata := repoDoc(t, "errata.md")
	anchors, dups := headingAnchors(string(errata))
	if len(anchors) < 10 {
		t.Fatalf("docs/errata.md has only %d headings", len(anchors))
	}
	for _, d := range dups {
		t.Errorf("docs/errata.md: heading %q repeats an anchor (GitHub would rename it)", d)
	}
	files := goFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d .go files under %s", len(files), root)
	}
	cited := 0
	for _, src := range files {
		cited += len(errataCitation.FindAllString(src, -1))
	}
	if cited == 0 {
		t.Error("no .go file cites docs/errata.md: is the citation pattern still right?")
	}
	for _, p := range citationProblems(files, anchors, pendingCitations) {
		t.Error(p)
	}
}

// citationProblems checks every file (path relative to the module → its
// text) against the two rules, tolerating the pending citations.
func citationProblems(files map[string]string, anchors map[string]bool, pending []pendingCitation) []string {
	var out []string
	used := make([]bool, len(pending))
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		for i, line := range strings.Split(files[path], "\n") {
			if notesCitation.MatchString(line) {
				k := slices.IndexFunc(pending, func(c pendingCitation) bool {
					return c.path == path && strings.Contains(line, c.snippet)
				})
				if k < 0 {
					out = append(out, fmt.Sprintf("%s:%d: cites the notes outside the repository (%q); cite a section of docs/errata.md instead",
						path, i+1, notesCitation.FindString(line)))
				} else {
					used[k] = true
				}
			}
			for _, m := range errataCitation.FindAllStringSubmatch(line, -1) {
				if !anchors[m[1]] {
					out = append(out, fmt.Sprintf("%s:%d: cites %s, but docs/errata.md has no heading with that anchor",
						path, i+1, m[0]))
				}
			}
		}
	}
	for k, c := range pending {
		if !used[k] {
			out = append(out, fmt.Sprintf("%s: pending notes citation %q no longer found: remove it from pendingCitations",
				c.path, c.snippet))
		}
	}
	return out
}

// goFiles reads every .go file under root, skipping the directories the go
// tool ignores (names starting with "." or "_") and nested modules.
func goFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// headingAnchors returns the GitHub anchors of the Markdown headings of doc
// (ATX headings outside fenced code blocks), numbering repeats "-1", "-2"
// as GitHub does, and the headings whose plain anchor repeats an earlier one.
func headingAnchors(doc string) (map[string]bool, []string) {
	anchors := map[string]bool{}
	seen := map[string]int{}
	var dups []string
	fenced := false
	sc := bufio.NewScanner(strings.NewReader(doc))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if fenced || level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		a := anchor(text)
		if n := seen[a]; n > 0 {
			dups = append(dups, text)
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors, dups
}

// anchor is GitHub's anchor for a heading's text (as github-slugger makes
// it): lower case, each space a hyphen, and every character other than
// letters, marks, numbers, connector punctuation (the underscore) and
// hyphens dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestAnchor(t *testing.T) {
	cases := []struct{ heading, want string }{
		{"ppca-second-moment-sensitivity", "ppca-second-moment-sensitivity"},
		{"PPCA-DP-MH", "ppca-dp-mh"},
		{"LDA-DP and Mul-LDA-DP", "lda-dp-and-mul-lda-dp"},
		{"DPPCA-SVM and PCA-DPSVM", "dppca-svm-and-pca-dpsvm"},
		{"The paper's (p+1)/2 factor: wrong!", "the-papers-p12-factor-wrong"},
		{"`code` and *emphasis*", "code-and-emphasis"},
		{"  snake_case kept  ", "snake_case-kept"},
		{"Über σ²", "über-σ²"},
	}
	for _, c := range cases {
		if got := anchor(c.heading); got != c.want {
			t.Errorf("anchor(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
}

func TestHeadingAnchors(t *testing.T) {
	doc := "# Title\n\n## PPCA-DP-MH\n\n### ppca-latent-codes\n\n```\n## not a heading\n```\n#not-a-heading\n## PPCA-DP-MH\n"
	anchors, dups := headingAnchors(doc)
	for _, want := range []string{"title", "ppca-dp-mh", "ppca-latent-codes", "ppca-dp-mh-1"} {
		if !anchors[want] {
			t.Errorf("anchor %q missing from %v", want, anchors)
		}
	}
	for _, absent := range []string{"not-a-heading", "notaheading"} {
		if anchors[absent] {
			t.Errorf("anchor %q should not exist", absent)
		}
	}
	if len(dups) != 1 || dups[0] != "PPCA-DP-MH" {
		t.Errorf("dups = %q, want [PPCA-DP-MH]", dups)
	}
}

// TestCitationProblemsCatchPlantedCitations shows both rules can fail. The
// planted texts are built by concatenation so that this file itself cites
// nothing.
func TestCitationProblemsCatchPlantedCitations(t *testing.T) {
	anchors := map[string]bool{"ppca-dp-mh": true, "ppca-latent-codes": true}
	errata := "docs/errata.md" + "#"
	pending := []pendingCitation{{"p/pending.go", `"method (NOTES`}}
	pendingFile := "package p\n\nvar m = \"method (NOTES" + " §4 Algorithms 2-3)\"\n"
	cases := []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"errata citations only", map[string]string{
			"a/a.go": "// Package a (" + errata + "ppca-dp-mh).\npackage a\n",
			"a/b.go": "package a\n\n// b is real (" + errata + "ppca-latent-codes).\nfunc b() {}\n",
		}, 0},
		{"notes citation", map[string]string{"a/a.go": "// Package a (see NOTES" + " §1).\npackage a\n"}, 1},
		{"notes.md citation", map[string]string{"a/a.go": "// Package a (see NOTES.md" + " §2).\npackage a\n"}, 1},
		{"unknown anchor", map[string]string{"a/a.go": "// Package a (" + errata + "no-such-section).\npackage a\n"}, 1},
		{"both on one line", map[string]string{"a/a.go": "// a (NOTES" + " §1, " + errata + "ppca_dp_mh)\npackage a\n"}, 2},
		{"pending citation tolerated", map[string]string{"p/pending.go": pendingFile}, 0},
		{"pending citation elsewhere", map[string]string{"p/pending.go": pendingFile, "p/other.go": pendingFile}, 1},
		{"stale pending citation", map[string]string{"p/pending.go": "package p\n"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := c.files
			if _, ok := files["p/pending.go"]; !ok {
				files["p/pending.go"] = pendingFile
			}
			if got := citationProblems(files, anchors, pending); len(got) != c.want {
				t.Fatalf("problems %q, want %d", got, c.want)
			}
		})
	}
}
