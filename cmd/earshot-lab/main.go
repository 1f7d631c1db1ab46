// Command earshot-lab is earshot with the demo and the benchmarks: every
// command of earshot, and `demo` and `bench`, which earshot hands over to
// it. The generators, corpora and benchmark harnesses they use
// (internal/lab) stay out of the server's binary.
package main

import "github.com/earshot/earshot/internal/cli"

// labCommands are what earshot-lab adds to earshot's commands.
var labCommands = []cli.Command{demoCommand, benchCommand}

func main() {
	cli.Main(labCommands...)
}
