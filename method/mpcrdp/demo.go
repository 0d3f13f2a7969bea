package mpcrdp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/dppub/dppub/method"
)

// demo splits the dataset by columns as the paper's §6 does
// (SplitFeatures), with a trusted server and standard-DP settings; adult
// or wdbc.
func demo(in method.DemoInput) (*method.Demo, error) {
	var features []string
	label, b := "", 2
	switch in.Dataset {
	case "adult":
		features, label = AdultFeatures, "income"
	case "wdbc":
		label, b = "diagnosis", 4
		features = slices.DeleteFunc(in.Table.Schema.Names(), func(s string) bool { return s == label })
	default:
		return nil, fmt.Errorf("%s's demo splits adult or wdbc, not %q", Name, in.Dataset)
	}
	t, err := in.Table.SelectColumns(append(slices.Clone(features), label)...)
	if err != nil {
		return nil, err
	}
	if t.Schema.ID == "" {
		t.Schema.ID = "id"
		t.IDs = make([]string, t.Len())
		for i := range t.IDs {
			t.IDs[i] = strconv.Itoa(i + 1)
		}
	}
	parts, err := SplitFeatures(t, features, label, in.Owners)
	if err != nil {
		return nil, err
	}
	return &method.Demo{
		Coordinator: RoleServer, Owners: parts, OwnerPrefix: "party", Schema: t.Schema, ByColumns: true,
		Settings: json.RawMessage(fmt.Sprintf(`{"label": %q, "epsilon": 1, "notion": "standard", "b": %d}`, label, b)),
		Budget:   &method.DemoBudget{Epsilon: 3},
		Summary:  fmt.Sprintf("a trusted server and %d parties holding the columns of %d %s records (global schema %s)", in.Owners, t.Len(), in.Dataset, in.SchemaFile()),
	}, nil
}
