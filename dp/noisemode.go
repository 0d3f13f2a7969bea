package dp

// NoiseMode says who draws the noise of a release computed jointly by
// several members (owners of rows, parties of columns), as integer shares
// on the release's public grid (Noiser.Shares). Every multi-party method
// that offers the choice uses this one vocabulary.
type NoiseMode string

const (
	// NoiseInsiderSafe has every contributing member and the coordinator
	// (or third party) add a share, drawn so that any one of them can be
	// left out and the others still make up the calibrated noise: a
	// member that knows its own share still faces the full noise, so the
	// charged guarantee holds against the coordinator and against any
	// single member. Cost: the noise variance is (K+1)/K times the
	// calibrated one for K drawing members.
	NoiseInsiderSafe NoiseMode = "insider-safe"
	// NoiseExact has the members' shares sum to exactly the calibrated
	// noise: the output has the law of the central release, and against a
	// member that knows its own share the guarantee is weaker (Gaussian:
	// ρ·K/(K−1)).
	NoiseExact NoiseMode = "exact"
)

var noiseModes = NewWords("noise mode", NoiseInsiderSafe, NoiseExact)

// Check reports whether m is a known noise mode.
func (m NoiseMode) Check() error { return noiseModes.Check(m) }

// String returns the word as flags and JSON spell it.
func (m NoiseMode) String() string { return string(m) }

// ParseNoiseMode reads a noise mode by its name.
func ParseNoiseMode(s string) (NoiseMode, error) { return noiseModes.Parse(s) }
