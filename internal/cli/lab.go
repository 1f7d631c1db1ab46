package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// LabBinary is the binary of the lab commands (the demo and the
// benchmarks), built beside earshot and kept out of the server's binary.
const LabBinary = "earshot-lab"

// The lab commands' descriptions, shared by earshot-lab's commands and
// earshot's hand-over to them.
const (
	DemoShort  = "Build a demo organization with processed chats and calls, and print curl commands to try"
	BenchShort = "Benchmarks on this machine, printed beside their baselines"
)

// HandOvers are earshot's commands that earshot-lab runs.
var HandOvers = []Command{HandOver("demo", DemoShort), HandOver("bench", BenchShort)}

// HandOver is a command of earshot that runs the same command line in
// earshot-lab (found beside this binary, else on PATH), in this process's
// place: its flags, output, signals and exit status are earshot-lab's.
func HandOver(use, short string) Command {
	return func(*Config) *cobra.Command {
		return &cobra.Command{
			Use:                use,
			Short:              short + " (runs " + LabBinary + ")",
			DisableFlagParsing: true,
			RunE: func(*cobra.Command, []string) error {
				lab, err := findLab()
				if err != nil {
					return err
				}
				return syscall.Exec(lab, append([]string{lab}, os.Args[1:]...), os.Environ())
			},
		}
	}
}

func findLab() (string, error) {
	self, err := os.Executable()
	if err == nil {
		beside := filepath.Join(filepath.Dir(self), LabBinary)
		if _, err := os.Stat(beside); err == nil {
			return beside, nil
		}
	}
	if onPath, err := exec.LookPath(LabBinary); err == nil {
		return onPath, nil
	}
	return "", fmt.Errorf("%s is not installed beside %s or on PATH: it runs the demo and the benchmarks (make build builds both)", LabBinary, self)
}
