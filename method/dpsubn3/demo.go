package dpsubn3

import "github.com/dppub/dppub/method"

// demo is ppca-dp-mh's layout of owners of rows with default dp-subn3
// settings: the owners take their turns in file order, the curator relays
// and samples.
func demo(in method.DemoInput) (*method.Demo, error) {
	return &method.Demo{
		Extends:  "ppca-dp-mh",
		Settings: in.SchemaSettings(`"epsilon": 1`),
	}, nil
}
