package pgtest

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// childEnv marks the test binary started by TestClusterEndsWithItsProcess.
const childEnv = "EARSHOT_PGTEST_CHILD"

// A process killed before any cleanup runs (as a test binary killed by its
// timeout is) leaves no cluster behind: the watchdog stops the server and
// removes the directory.
func TestClusterEndsWithItsProcess(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		c, err := start(false)
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString(c.Dir + "\n")
		io.Copy(io.Discard, os.Stdin) // until killed
		return
	}
	t.Parallel()
	if _, err := binDir(); err != nil {
		t.Skip(err)
	}
	child := exec.Command(os.Args[0], "-test.run=^TestClusterEndsWithItsProcess$")
	child.Env = append(os.Environ(), childEnv+"=1")
	stdin, _ := child.StdinPipe()
	defer stdin.Close()
	out, _ := child.StdoutPipe()
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("the child started no cluster: %v", err)
	}
	dir := strings.TrimSpace(line)
	raw, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(first))
	if !running(pid) {
		t.Fatalf("the cluster's server %d is not running", pid)
	}

	child.Process.Kill() // SIGKILL: no cleanup of the child's runs
	child.Wait()
	deadline := time.Now().Add(time.Minute)
	for running(pid) || exists(dir) {
		if time.Now().After(deadline) {
			t.Fatalf("a minute after its process was killed, the server runs (%v) or its directory is left (%v)", running(pid), exists(dir))
		}
		time.Sleep(50 * time.Millisecond) // polling a condition in another process
	}
}

// running tells whether a process runs (a zombie, ended but not yet
// reaped by its new parent, does not).
func running(pid int) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	return err == nil && !strings.Contains(string(status), "State:\tZ")
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
