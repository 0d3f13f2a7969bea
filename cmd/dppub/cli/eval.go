package cli

import (
	"github.com/dppub/dppub/cmd/dppub/cli/kit"
	"github.com/dppub/dppub/eval"
	"github.com/dppub/dppub/eval/all"
	"github.com/dppub/dppub/randx"
	"github.com/spf13/cobra"
)

func newEvalCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval METHOD",
		Short: "Reproduce a paper's experiments (CSV in long form + PNG plots)",
		Long: `Reproduce the experiments of a method's paper on the real datasets. Results go
to a long-form CSV (experiment,dataset,task,method,calibration,noise,epsilon,
delta,parties,k,reps,metric,mean,std) and a PNG plot per figure. Progress is
shown on stderr. Both the paper's calibration and the sound one are run.`,
	}
	for _, e := range all.Experiments() {
		cmd.AddCommand(newExperimentCmd(e))
	}
	return cmd
}

// newExperimentCmd is one experiment of the registry (eval/all) as a
// command: its own flags and --seed.
func newExperimentCmd(e eval.Experiment) *cobra.Command {
	var src kit.SourceFlags
	var run eval.Run
	cmd := &cobra.Command{
		Use:   e.Name,
		Short: e.Short,
		Long:  e.Long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stderr := cmd.ErrOrStderr()
			env := eval.Env{
				Source:   func() *randx.Source { return src.Source(cmd.Flags(), stderr) },
				Progress: func(desc string) func(done, total int) { return kit.NewBar(stderr, desc) },
				Stdout:   cmd.OutOrStdout(), Stderr: stderr,
				Baseline: all.Baseline,
			}
			if err := run(cmd.Context(), env); err != nil {
				if eval.IsUsage(err) {
					return kit.UsageError{Err: err}
				}
				return err
			}
			return nil
		},
	}
	run = e.Bind(cmd.Flags())
	src.Register(cmd.Flags())
	return cmd
}
