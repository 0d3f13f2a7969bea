package pdpmvds

import (
	"encoding/json"
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// demo splits the dataset by columns among the parties
// (data.SplitVerticalEven: the same rows in the same order, no ID), with a
// synthesizer and the third party S.
func demo(in method.DemoInput) (*method.Demo, error) {
	if in.Owners < 2 {
		return nil, fmt.Errorf("%s needs at least 2 owners, got %d", Name, in.Owners)
	}
	t := &data.Table{Schema: in.Table.Schema, Rows: in.Table.Rows}
	t.Schema.ID = ""
	parts, err := data.SplitVerticalEven(t, in.Owners)
	if err != nil {
		return nil, err
	}
	return &method.Demo{
		Coordinator: RoleSynthesizer, Owners: parts, OwnerPrefix: "party", Schema: t.Schema, ByColumns: true,
		After:    []method.DemoMember{{Name: RoleThirdParty, Role: RoleThirdParty}},
		Settings: json.RawMessage(fmt.Sprintf(`{"records": %d, "rho": 0.5}`, t.Len())),
		Budget:   &method.DemoBudget{Rho: 5},
		Summary:  fmt.Sprintf("a synthesizer, %d parties holding the columns of %d %s records and the third party S (global schema %s)", in.Owners, t.Len(), in.Dataset, in.SchemaFile()),
	}, nil
}
