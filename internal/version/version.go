// Package version holds dppub's version string. It is a leaf package so
// that both the CLI (`dppub --version`) and the privacy report, which
// records the version of the code that produced each output, can read the
// same value without an import cycle.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is the release version, set at link time:
//
//	go build -ldflags "-X github.com/dppub/dppub/internal/version.Version=v1.2.0" ./cmd/dppub
//
// Empty (a plain `go build` or `go install`) means String asks the build
// information instead.
var Version = ""

// String returns Version when it is set, else the main module's version
// from the build information (set by `go install module@version`), else
// "devel" with the VCS revision the binary was built from when Go
// recorded one, marked "-dirty" when the work tree had local changes. A
// reader of a report can thus tell which code produced it.
func String() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	var b strings.Builder
	b.WriteString("devel+")
	b.WriteString(rev[:min(len(rev), 12)])
	if dirty {
		b.WriteString("-dirty")
	}
	return b.String()
}
