package pdpmvds

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	proto "github.com/dppub/dppub/method/pdpmvds/roles"
)

// protocolReport is the per-phase cost written beside the output.
type protocolReport struct {
	Suite   string          `json:"suite"`
	Noise   string          `json:"noise"`
	KeyBits int             `json:"key_bits,omitempty"`
	Total   float64         `json:"total_seconds"`
	Phases  []protocolPhase `json:"phases"`
}

type protocolPhase struct {
	Name     string               `json:"name"`
	Requests int                  `json:"requests"`
	Seconds  float64              `json:"wall_seconds"`
	Messages int                  `json:"messages"`
	Bytes    map[string]int       `json:"bytes_sent"`
	Ops      map[string]proto.Ops `json:"paillier_ops"`
}

// ProtocolReportJSON is the protocol report written beside the output: the
// suite, the noise mode, the key size (Paillier suite) and each phase's
// wall time, requests, messages, bytes sent by each role and Paillier
// operations, under the settings st the run used.
func (res *Published) ProtocolReportJSON(st Settings) ([]byte, error) {
	r := protocolReport{Suite: string(st.SSPP), Noise: string(st.Noise), Total: res.Elapsed.Seconds()}
	if st.UsesPaillier() {
		r.KeyBits = st.KeyBits
	}
	for _, p := range res.Phases {
		r.Phases = append(r.Phases, protocolPhase{Name: p.Name, Requests: p.Requests, Seconds: p.Wall.Seconds(),
			Messages: p.Messages, Bytes: p.Bytes, Ops: p.Ops})
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// WritePhases prints the per-phase cost table for the owner.
func (res *Published) WritePhases(w io.Writer) {
	fmt.Fprintf(w, "\nProtocol cost per phase (wall time; Paillier operations; bytes sent by each role):\n")
	for _, p := range res.Phases {
		var ops proto.Ops
		roles := make([]string, 0, len(p.Bytes))
		for id := range p.Bytes {
			roles = append(roles, id)
		}
		sort.Strings(roles)
		for _, o := range p.Ops {
			ops = ops.Add(o)
		}
		var sent []string
		for _, id := range roles {
			sent = append(sent, fmt.Sprintf("%s %s", id, byteSize(p.Bytes[id])))
		}
		fmt.Fprintf(w, "  %-18s %4d requests %10v  %9d Paillier ops  %s\n", p.Name, p.Requests, p.Wall.Round(time.Millisecond), ops.Total(), strings.Join(sent, ", "))
	}
}

func byteSize(b int) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
