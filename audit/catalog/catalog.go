// Package catalog lists every audit: the harness's core audits (package
// dp's mechanisms, DP-ERM, the marginal engine) and each method's own,
// from its folder (method/<name>/audits). It is the only package that
// imports the methods' audits; `dppub audit` and the test that every
// registered method is audited know them through it.
package catalog

import (
	"sync"

	"github.com/dppub/dppub/audit"
	dppcasvm "github.com/dppub/dppub/method/dppcasvm/audits"
	dpsubn3 "github.com/dppub/dppub/method/dpsubn3/audits"
	mpcrdp "github.com/dppub/dppub/method/mpcrdp/audits"
	mullda "github.com/dppub/dppub/method/mullda/audits"
	pdpmvds "github.com/dppub/dppub/method/pdpmvds/audits"
	ppcadpmh "github.com/dppub/dppub/method/ppcadpmh/audits"
	privbayes "github.com/dppub/dppub/method/privbayes/audits"
	rowsynth "github.com/dppub/dppub/method/rowsynth/audits"
	synthesize "github.com/dppub/dppub/method/synthesize/audits"
)

// Families are the audits' families in the order `dppub audit --help`
// lists them and `dppub audit all` runs them: the core, then the methods.
func Families() []audit.Family {
	return []audit.Family{
		audit.Core(),
		ppcadpmh.Audits(),
		mullda.Audits(),
		dppcasvm.Audits(),
		privbayes.Audits(),
		dpsubn3.Audits(),
		mpcrdp.Audits(),
		pdpmvds.Audits(),
		synthesize.Audits(),
		rowsynth.Audits(),
	}
}

// All is the catalog of every audit. It panics if two audits share a
// name: the list above is fixed, so that is a programming error, which
// TestCatalog catches.
var All = sync.OnceValue(func() *audit.Catalog {
	c, err := audit.NewCatalog(Families()...)
	if err != nil {
		panic(err)
	}
	return c
})
