package cli

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Everything the README's commands write in the repository root — the
// outputs with the files beside them, the demo consortia and key
// ceremonies (members' private keys, owners' data and budget ledgers) —
// is ignored by git, and no tracked file is.
func TestGitignoreCoversREADMEOutputs(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	root, text := readme(t)
	if err := exec.Command(git, "-C", root, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skip("not a git work tree")
	}
	var paths []string
	for _, m := range regexp.MustCompile(`--(out|plot|dir|ledger|keys) ([a-z][A-Za-z0-9._/-]*)`).FindAllStringSubmatch(text, -1) {
		p := strings.TrimSuffix(m[2], "/")
		switch m[1] {
		case "out":
			paths = append(paths, p, p+".privacy.json", p+".model.json", p+".protocol.json")
		case "dir":
			paths = append(paths, p+"/consortium.json", p+"/certs/owner-1.key", p+"/owner-1.budget.db")
		default:
			paths = append(paths, p+"/x")
		}
	}
	paths = append(paths, "keys/party-1.key.json", "ledger/entries.log", "ledger/keys/publisher.key")
	if len(paths) < 20 {
		t.Fatalf("found only %d output paths in the README: %q", len(paths), paths)
	}
	for _, p := range paths {
		if err := exec.Command(git, "-C", root, "check-ignore", "-q", "--no-index", p).Run(); err != nil {
			t.Errorf("%s is not ignored by .gitignore", p)
		}
	}
	out, err := exec.Command(git, "-C", root, "ls-files", "-ci", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("tracked files match .gitignore:\n%s", s)
	}
}
