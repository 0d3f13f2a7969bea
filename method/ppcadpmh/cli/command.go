// Package ppcadpmhcli is the hand-written `dppub publish ppca-dp-mh`
// command: the owners' tables or their statistics files, the synthetic
// rows streamed to the output, and their utility lines.
package ppcadpmhcli

import (
	"fmt"
	"runtime/debug"

	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/data"
	ppcaspec "github.com/dppub/dppub/method/ppcadpmh"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/privacy"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

type ppcaFlags struct {
	owners     kit.OwnerFlags
	statistics []string
	src        kit.SourceFlags
	settings   ppcaspec.Settings
	gate       kit.GateFlags
	kit.OutputFlags
}

// Command is `dppub publish ppca-dp-mh`.
func Command() *cobra.Command {
	f := &ppcaFlags{settings: ppcaspec.Settings{Epsilon: 1}}
	f.settings.SetDefaults()
	cmd := &cobra.Command{
		Use:   "ppca-dp-mh",
		Short: "Synthetic data from horizontally split owners via DP covariance and probabilistic PCA",
		Long: `PPCA-DP-MH (Gu, Zhang, Yang): m owners holding disjoint records of the same
attributes each release a DP mean and second-moment matrix to a semi-trusted
curator, who fits a probabilistic PCA model; each owner then generates as
many synthetic rows as it holds. Every attribute is encoded into [0,1]
(numeric by its declared bounds, categorical one-hot) and decoded back.

Calibrations:
  sound (default)  noise scaled to the true sensitivities; with the one-hot
                   structure of the encoding this is far less noise than the
                   generic [0,1]^p bound (use --generic-bounds to compare)
  paper            the paper's Lap(2p/(n_i ε)); the report states the weaker
                   guarantee it really gives

Noise modes:
  local (default)      each owner noises its own statistics (the paper)
  secure-aggregate     owners add shares of one noise draw under pairwise
                       masks: the aggregate carries centralised noise, so
                       accuracy no longer falls as owners are added

Examples:
  dppub publish ppca-dp-mh --dataset adult --owners 3 --epsilon 1 --out adult-synth.csv
  dppub publish ppca-dp-mh --input a.csv --input b.csv --schema s.json \
      --epsilon 0.5 --mechanism gaussian --delta 1e-6 --noise secure-aggregate --out synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return kit.FlagErrors(cmd.Flags(), runPublishPPCA(cmd, f)) },
	}
	fs := cmd.Flags()
	f.owners.Register(fs)
	f.src.Register(fs)
	kit.BindSettings(fs, &f.settings)
	fs.StringArrayVar(&f.statistics, "statistics", nil, "an owner's statistics file computed elsewhere (the Beam pipeline, beam/README.md), instead of its rows; repeat once per owner, with --schema")
	f.OutputFlags.Register(fs, "synthetic table (CSV, Parquet for a .parquet path, - for standard output; its rows streamed as they are made)")
	f.gate.Register(fs)
	return cmd
}

func runPublishPPCA(cmd *cobra.Command, f *ppcaFlags) error {
	if err := f.Resolve(); err != nil {
		return err
	}
	src := f.src.Source(cmd.Flags(), cmd.ErrOrStderr())
	if len(f.statistics) > 0 {
		return runPPCAFromStatistics(cmd, f, src)
	}
	owners, err := f.owners.Load(cmd.ErrOrStderr(), src)
	if err != nil {
		return err
	}
	if owners, err = f.gate.HoldOut(cmd.ErrOrStderr(), owners, f.owners.Skip); err != nil {
		return err
	}
	// From here most of the heap is the owners' tables, held to the end
	// for the printed utility and the gate: collecting when the heap has
	// grown by half of them, not by all of them, keeps the peak of a run
	// on 3 × 10⁶ rows under 1 GB at little cost (as synthesize does).
	debug.SetGCPercent(50)
	// The defaults are filled here, as the run fills them, so that the
	// report's parameters (the flags) record the δ the run used.
	f.settings.SetDefaults()
	records := 0
	for _, t := range owners {
		records += t.Len()
	}
	f.settings.DefaultRecords(records)
	opts := ppcaspec.Options{Owners: owners, Source: src, Settings: f.settings}
	// The quality's synthetic marginals are counted as the rows go by, so
	// that a streamed release needs no copy of them.
	synth, err := kit.NewSynthCounts(owners[0].Schema, f.Out)
	if err != nil {
		return err
	}
	// The rows are written as the curator decodes them, never held whole
	// (publishStreamed: a file, Parquet by row group, standard output, the
	// gate on a bounded sample).
	var res *ppcaspec.Published
	err = kit.PublishStreamed(&f.OutputFlags, cmd, &f.gate, owners, owners[0].Schema, func(emit kit.EmitFunc) (*privacy.Report, error) {
		opts.Sink = func(t *data.Table) error {
			synth.Add(t)
			return emit(t, nil)
		}
		var err error
		if res, err = ppcaspec.Publish(cmd.Context(), opts); err != nil {
			return nil, err
		}
		return res.Report, nil
	})
	if err != nil {
		return err
	}
	printPPCAUtility(cmd, owners, res, synth)
	return nil
}

// runPPCAFromStatistics publishes from owners who bring statistics files
// instead of rows; no utility is printed (there are no rows to compare).
func runPPCAFromStatistics(cmd *cobra.Command, f *ppcaFlags, src *randx.Source) error {
	if f.owners.Schema == "" || f.owners.Dataset != "" || len(f.owners.Inputs) > 0 {
		return kit.Usagef("--statistics takes --schema (the schema the statistics were computed under) and no --dataset or --input")
	}
	if f.gate.On {
		return kit.Usagef("--gate attacks the owners' rows, and --statistics brings none: run `dppub check` where the rows are")
	}
	schema, err := data.LoadSchema(f.owners.Schema)
	if err != nil {
		return err
	}
	var stats []*ownerstats.Statistics
	for _, path := range f.statistics {
		st, err := kit.ReadOwnerStatistics(path)
		if err != nil {
			return err
		}
		stats = append(stats, st)
	}
	opts := ppcaspec.Options{Statistics: stats, Schema: schema, Source: src, Settings: f.settings}
	err = kit.PublishStreamed(&f.OutputFlags, cmd, nil, nil, schema, func(emit kit.EmitFunc) (*privacy.Report, error) {
		opts.Sink = func(t *data.Table) error { return emit(t, nil) }
		res, err := ppcaspec.Publish(cmd.Context(), opts)
		if err != nil {
			return nil, err
		}
		return res.Report, nil
	})
	if err != nil {
		return err
	}
	kit.PrintQuality(cmd, cmd.OutOrStdout(), nil, nil, kit.ErrNoRows)
	return nil
}

// printPPCAUtility prints the quality against synth, the synthetic rows'
// marginals as written (printQuality, the figures of dppub compare), and
// the model and the protocol's cost.
func printPPCAUtility(cmd *cobra.Command, owners []*data.Table, res *ppcaspec.Published, synth *kit.SynthCounts) {
	w := cmd.OutOrStdout()
	real, err := kit.RealCounts(owners...)
	kit.PrintQuality(cmd, w, real, synth.Joint, err)
	fmt.Fprintf(w, "  model: k = %d components of p = %d, noise variance σ² = %.4g\n", res.Model.K, res.Encoder.Dim(), res.Model.Sigma2)
	fmt.Fprintf(w, "  protocol: %d messages, %.1f MB, %v\n", res.Traffic.Messages, float64(res.Traffic.TotalBytes())/1e6, res.Elapsed.Round(1e6))
	if res.Clamped > 0 {
		fmt.Fprintf(w, "  %d values were clamped to the declared bounds\n", res.Clamped)
	}
}
