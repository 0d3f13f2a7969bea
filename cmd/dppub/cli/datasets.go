package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/dppub/dppub/datasets"
	"github.com/spf13/cobra"
)

func newDatasetsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "datasets",
		Short: "List the built-in datasets",
		Long: `List the datasets dppub knows by name. Embedded ones are compiled into the
binary; external ones are read from $DPPUB_DATA/<name> or ../shared/data/<name>
when present. Use a name with --dataset.`,
		Example: `  dppub datasets
  dppub publish ppca-dp-mh --dataset adult --owners 3 --epsilon 1 --out adult-synth.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tROWS\tCOLUMNS\tLABEL\tWHERE\tLICENCE\tDESCRIPTION")
			for _, d := range datasets.List() {
				where := "embedded"
				if !d.Embedded {
					where = "external"
				}
				fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", d.Name, d.Rows, d.Columns, d.Label, where, d.License, d.Description)
			}
			return w.Flush()
		},
	}
}
