package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// earshot demo and earshot bench run earshot-lab with the same command
// line, in earshot's place: its output and exit status are theirs.
func TestHandOverRunsTheLabBinary(t *testing.T) {
	dir := t.TempDir()
	lab := "#!/bin/sh\necho \"lab:$*\"\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, LabBinary), []byte(lab), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--data", "/tmp/x", "demo", "--chats", "5", "--if-empty"},
		{"bench", "query", "--runs", "2"},
		{"demo", "--help"},
	} {
		out, err := asEarshot(dir, args...).Output()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 3 {
			t.Errorf("%v: exit %v, want earshot-lab's status 3", args, err)
		}
		if want := "lab:" + strings.Join(args, " ") + "\n"; string(out) != want {
			t.Errorf("%v: printed %q, want %q", args, out, want)
		}
	}

	// Without earshot-lab, the commands say where it should be.
	out, err := asEarshot(t.TempDir(), "demo").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "earshot-lab is not installed beside") {
		t.Errorf("without earshot-lab: %v %s", err, out)
	}
}

// asEarshot runs this test binary as earshot, with only dir on PATH.
func asEarshot(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "EARSHOT_TEST_RUN_MAIN=1", "PATH="+dir)
	return cmd
}
