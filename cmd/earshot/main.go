// Command earshot is Earshot's server and operators' binary: the API with
// its job scheduler (serve) and the operators' commands. The demo and the
// benchmarks are handed over to earshot-lab.
package main

import "github.com/earshot/earshot/internal/cli"

func main() {
	cli.Main(cli.HandOvers...)
}
