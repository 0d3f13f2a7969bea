package audit

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Family is the audits one package contributes: its named audits with
// their suite cases, its hostile-coordinator attacks by method, and the
// registered methods whose evidence is audits named otherwise. A method's
// audits (method/<name>/audits) return one; package audit/catalog lists
// them all.
type Family struct {
	Methods []Method
	Cases   []Case
	// Hostile lists, by registered method name, the attacks on its member
	// roles.
	Hostile map[string]func() []HostileAttack
	// Evidence maps a registered method that no audit's name contains to
	// the suite's audits that check its claim.
	Evidence map[string][]string
}

// Collect is the family that each of adds fills in turn.
func Collect(adds ...func(*Family)) Family {
	var f Family
	for _, add := range adds {
		add(&f)
	}
	return f
}

// Add appends a named audit and its suite cases (a case with Long set
// runs only in long mode).
func (f *Family) Add(m Method, cases ...Case) {
	f.Methods = append(f.Methods, m)
	f.Cases = append(f.Cases, cases...)
}

// AddSound adds a named audit with the sound calibration only, whose
// mechanism is build at the options' ε (eps when they leave it unset),
// and its suite case: it passes.
func (f *Family) AddSound(name, summary string, fastRuns, longRuns int, eps float64, build func(eps float64) (Mechanism, error)) {
	f.Add(Method{Name: name, Summary: summary, Calibrations: []string{"sound"}, FastRuns: fastRuns, LongRuns: longRuns,
		Build: func(o MethodOptions) (Mechanism, error) { return build(cmp.Or(o.Epsilon, eps)) }},
		Case{Method: name, Expect: Pass})
}

// AddFixed adds a named audit with the sound calibration only, whose
// mechanism build makes with no option (its budget is fixed, as its
// claim states), and its suite case: it passes.
func (f *Family) AddFixed(name, summary string, fastRuns, longRuns int, build func() (Mechanism, error)) {
	f.Add(Method{Name: name, Summary: summary, Calibrations: []string{"sound"}, FastRuns: fastRuns, LongRuns: longRuns,
		Build: func(MethodOptions) (Mechanism, error) { return build() }},
		Case{Method: name, Expect: Pass})
}

// AddPipeline adds the whole-pipeline audit "pipeline-"+name
// (PipelineMethod, taking the extra variants too), whose mechanism build
// makes for the options' variant (their Calibration), and its suite case:
// the sound pipeline passes.
func (f *Family) AddPipeline(name, summary string, build func(variant string) (Mechanism, error), extra ...string) {
	f.Add(PipelineMethod("pipeline-"+name, summary, func(o MethodOptions) (Mechanism, error) { return build(o.Calibration) }, extra...),
		Case{Method: "pipeline-" + name, Expect: Pass})
}

// CalibrationVerdict is the verdict a suite case expects of a
// calibration.
type CalibrationVerdict struct {
	Calibration string
	Expect      Verdict
}

// AddCalibrated adds a named audit that takes the calibrations of
// verdicts, whose mechanism is build at the options' calibration and ε
// (eps when they leave it unset), and one suite case per calibration
// expecting its verdict.
func (f *Family) AddCalibrated(name, summary string, fastRuns, longRuns int, eps float64, build func(calibration string, eps float64) (Mechanism, error), verdicts ...CalibrationVerdict) {
	m := Method{Name: name, Summary: summary, FastRuns: fastRuns, LongRuns: longRuns,
		Build: func(o MethodOptions) (Mechanism, error) { return build(o.Calibration, cmp.Or(o.Epsilon, eps)) }}
	var cases []Case
	for _, v := range verdicts {
		m.Calibrations = append(m.Calibrations, v.Calibration)
		cases = append(cases, Case{Method: name, Options: MethodOptions{Calibration: v.Calibration}, Expect: v.Expect})
	}
	f.Add(m, cases...)
}

// AddHostile lists method's hostile-coordinator attacks.
func (f *Family) AddHostile(method string, attacks func() []HostileAttack) {
	if f.Hostile == nil {
		f.Hostile = map[string]func() []HostileAttack{}
	}
	f.Hostile[method] = attacks
}

// Catalog is every named audit, in the order of its families.
type Catalog struct {
	methods  []Method
	cases    []Case
	hostile  map[string]func() []HostileAttack
	evidence map[string][]string
}

// NewCatalog joins families. A name that two audits (or two hostile
// suites) share, an audit without a calibration or a Build, and a suite
// case of no audit are errors.
func NewCatalog(families ...Family) (*Catalog, error) {
	c := &Catalog{hostile: map[string]func() []HostileAttack{}, evidence: map[string][]string{}}
	for _, f := range families {
		for _, m := range f.Methods {
			if _, err := c.Lookup(m.Name); err == nil {
				return nil, fmt.Errorf("audit: method %q registered twice", m.Name)
			}
			if len(m.Calibrations) == 0 || m.Build == nil {
				return nil, fmt.Errorf("audit: method %q needs a calibration and a Build function", m.Name)
			}
			c.methods = append(c.methods, m)
		}
		c.cases = append(c.cases, f.Cases...)
		for name, attacks := range f.Hostile {
			if c.hostile[name] != nil {
				return nil, fmt.Errorf("audit: hostile audit of %q registered twice", name)
			}
			c.hostile[name] = attacks
		}
		for name, audits := range f.Evidence {
			c.evidence[name] = append(c.evidence[name], audits...)
		}
	}
	for _, k := range c.cases {
		if _, err := c.Lookup(k.Method); err != nil {
			return nil, fmt.Errorf("audit: a suite case: %w", err)
		}
	}
	return c, nil
}

// Methods lists every named audit.
func (c *Catalog) Methods() []Method { return slices.Clone(c.methods) }

// Lookup returns the named audit.
func (c *Catalog) Lookup(name string) (Method, error) { return lookup(c.methods, name) }

// Lookup returns the family's audit of that name.
func (f Family) Lookup(name string) (Method, error) { return lookup(f.Methods, name) }

func lookup(methods []Method, name string) (Method, error) {
	var names []string
	for _, m := range methods {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Method{}, fmt.Errorf("audit: unknown method %q (want one of %s)", name, strings.Join(names, ", "))
}

// Suite is the set of audits run in CI (fast) and before a release (long,
// which adds the cases marked Long).
func (c *Catalog) Suite(long bool) []Case {
	var cases []Case
	for _, k := range c.cases {
		if long || !k.Long {
			cases = append(cases, k)
		}
	}
	return cases
}

// Evidence is the suite's audits that check the claim of a registered
// method whose name no audit carries (nil for the others).
func (c *Catalog) Evidence(method string) []string { return c.evidence[method] }

// EvidenceMethods are the registered methods with declared evidence,
// sorted.
func (c *Catalog) EvidenceMethods() []string { return slices.Sorted(maps.Keys(c.evidence)) }

// HostileMethods are the methods with hostile-coordinator audits, sorted.
func (c *Catalog) HostileMethods() []string { return slices.Sorted(maps.Keys(c.hostile)) }

// HostileSuite lists the attacks of the named methods (all when none).
func (c *Catalog) HostileSuite(methods ...string) ([]HostileAttack, error) {
	if len(methods) == 0 {
		methods = c.HostileMethods()
	}
	var out []HostileAttack
	for _, m := range methods {
		f, ok := c.hostile[m]
		if !ok {
			return nil, fmt.Errorf("audit: no hostile-coordinator audit of %q (have %v)", m, c.HostileMethods())
		}
		out = append(out, f()...)
	}
	return out, nil
}
