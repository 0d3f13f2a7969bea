package ppcadpmh

import (
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/method"
)

// demo is a curator and owners holding random disjoint shares of the rows
// (the horizontal layout the other demos of owners of rows extend).
func demo(in method.DemoInput) (*method.Demo, error) {
	parts := []*data.Table{in.Table}
	if in.Owners > 1 {
		var err error
		if parts, err = data.SplitHorizontal(in.Table, in.Owners, nil, in.Src); err != nil {
			return nil, err
		}
	}
	return &method.Demo{
		Coordinator: RoleCurator, Owners: parts, OwnerPrefix: method.RoleOwner, Schema: in.Table.Schema,
		Settings: in.SchemaSettings(`"epsilon": 1, "mechanism": "laplace", "noise": "local"`),
		Budget:   &method.DemoBudget{Epsilon: 3, Delta: 1e-5},
		Summary:  fmt.Sprintf("a curator and %d owners of %s (%d rows in all)", in.Owners, in.Dataset, in.Table.Len()),
	}, nil
}
