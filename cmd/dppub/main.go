// Command dppub publishes data from several owners under differential
// privacy. Run `dppub --help` for the commands.
package main

import (
	"os"

	"github.com/dppub/dppub/cmd/dppub/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
