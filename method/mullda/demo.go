package mullda

import (
	"fmt"

	"github.com/dppub/dppub/datasets"
	"github.com/dppub/dppub/method"
)

// demo adds a publisher and a noise dealer, and default mul-lda-dp
// settings, to ppca-dp-mh's layout of owners of rows (whose curator stays,
// so ppca-dp-mh runs there too).
func demo(in method.DemoInput) (*method.Demo, error) {
	label := DatasetLabel(in.Dataset)
	if label == "" {
		return nil, fmt.Errorf("dataset %q has no default label for %s", in.Dataset, NameMulti)
	}
	return &method.Demo{
		Extends: "ppca-dp-mh",
		After: []method.DemoMember{
			{Name: RolePublisher, Role: RolePublisher, PublishingLedger: "publishing-ledger"},
			{Name: RoleDealer, Role: RoleDealer},
		},
		Settings: in.SchemaSettings(fmt.Sprintf(`"label": %q, "epsilon": 1, "delta": 1e-06`, label)),
		Summary:  ", a publisher (recording every session in publishing-ledger/) and a noise dealer",
	}, nil
}

// DatasetLabel is a built-in dataset's label column ("" when it has none).
func DatasetLabel(name string) string {
	for _, d := range datasets.List() {
		if d.Name == name {
			return d.Label
		}
	}
	return ""
}
