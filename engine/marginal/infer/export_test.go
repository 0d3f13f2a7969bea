package infer

// What the benchmarks outside the package (bench_test.go) time besides
// the exported GUM: its updater on a given number of workers, and the
// sorting reference it replaced (gumref_test.go).
var (
	GUMWith = gum
	RefGUM  = refGUM
)

// GUMDefaults fills o's defaults as GUM does.
func GUMDefaults(o *GUMOptions) error { return o.defaults() }
