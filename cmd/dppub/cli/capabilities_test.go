package cli

import (
	"bytes"
	"testing"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
	"github.com/spf13/cobra"
)

// The commands ask a method's spec and result for what they can do, not
// its name or type: rows stream for the specs that say so, and a result
// that is no classifier prints no classifier utility.
func TestCommandsAskCapabilities(t *testing.T) {
	for _, s := range method.All() {
		t.Run(s.Name, func(t *testing.T) {
			if got := streamsRows(s.Name); got != s.StreamsRows {
				t.Fatalf("streamsRows(%q) = %v, the spec says %v", s.Name, got, s.StreamsRows)
			}
		})
	}
	if !streamsRows("ppca-dp-mh") || streamsRows("synthesize-rows") || streamsRows("no-such-method") {
		t.Fatal("ppca-dp-mh's rows stream, synthesize-rows' and an unknown method's do not")
	}
	if got := streamingMethods(); got != "ppca-dp-mh" {
		t.Fatalf("streaming methods %q, want ppca-dp-mh (named in --out -'s refusal)", got)
	}
	cmd := &cobra.Command{}
	var out bytes.Buffer
	cmd.SetOut(&out)
	if err := kit.PrintClassifierUtility(cmd, &data.Table{}, struct{}{}); err != nil || out.Len() != 0 {
		t.Fatalf("a result that is no classifier printed %q, error %v", out.String(), err)
	}
}
