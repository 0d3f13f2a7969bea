package infer

// GUMWith is what the benchmarks outside the package (bench_test.go)
// time besides the exported GUM: its updater on a given number of
// workers, or the plain updater its speed-ups replaced (reindex).
var GUMWith = gum

// GUMDefaults fills o's defaults as GUM does.
func GUMDefaults(o *GUMOptions) error { return o.defaults() }
