// Package registry registers every method with package method: importing
// it makes them all known to the CLI, eval, audit, the demo and the
// transport. Adding a method is one line here.
package registry

import (
	"github.com/dppub/dppub/method"
	"github.com/dppub/dppub/method/dppcasvm"
	"github.com/dppub/dppub/method/dpsubn3"
	"github.com/dppub/dppub/method/mpcrdp"
	"github.com/dppub/dppub/method/mullda"
	"github.com/dppub/dppub/method/pdpmvds"
	"github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/method/privbayes"
	"github.com/dppub/dppub/method/rowsynth"
	"github.com/dppub/dppub/method/synthesize"
)

func init() {
	for _, s := range []method.Spec{
		ppcadpmh.Spec,
		dpsubn3.Spec,
		mpcrdp.Spec,
		mullda.Single,
		mullda.Multi,
		pdpmvds.Spec,
		rowsynth.Spec,
		synthesize.Spec,
		privbayes.Spec,
		dppcasvm.DPPCASVM,
		dppcasvm.PCADPSVM,
		dppcasvm.AGSVM,
		dppcasvm.ModSuLQSVM,
	} {
		method.Register(s)
	}
}
