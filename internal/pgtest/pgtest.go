// Package pgtest runs a throwaway PostgreSQL cluster for tests: initdb in
// a temporary directory, the server listening on a unix socket there (no
// TCP port, nothing shared with another test), stopped and removed when
// the test ends — or, when the test binary is killed (its timeout runs no
// cleanup), when the process that started it ends: a watchdog holds the
// cluster's life to the process's. Debian's postgresql package provides the binaries
// (make deps installs it). As root, the cluster is the postgres user's:
// PostgreSQL refuses to run as root.
package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// Cluster is a running throwaway cluster.
type Cluster struct {
	// Dir holds the data directory and the socket.
	Dir string
	bin string
	run func(name string, args ...string) *exec.Cmd
	// settings are the server's options (pg_ctl -o).
	settings string
	// watchdog stops the cluster and removes Dir when lifeline closes:
	// by Stop, or by the kernel when this process ends, however it ends.
	watchdog *exec.Cmd
	lifeline *os.File
}

// binDir is the newest installed PostgreSQL's binaries.
func binDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL's initdb is not installed (make deps installs the postgresql package)")
}

func version(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// Start initializes and starts a cluster for the test, with a database
// named earshot that the earshot role owns; it stops when the test ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartDurable starts a cluster that syncs its writes to disk as a
// production server does (tests' clusters do not), for benchmarks; the
// caller stops it.
func StartDurable() (*Cluster, error) { return start(true) }

// start initializes and starts a cluster.
func start(durable bool) (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	// The socket path must stay under the kernel's 107 bytes: a short
	// directory of its own, not t.TempDir's long one.
	dir, err := os.MkdirTemp("", "pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin, run: exec.Command}
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user (the postgresql package makes it): %w", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		c.run = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
	}
	if err := c.watch(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c.settings = "-c listen_addresses='' -k " + dir + " -c max_connections=200"
	if !durable {
		c.settings += " -c fsync=off"
	}
	for _, step := range [][]string{
		{"initdb", "-D", c.data(), "-U", "earshot", "-A", "trust", "-E", "UTF8", "--no-sync"},
		c.startCommand(),
		{"createdb", "-h", dir, "-U", "earshot", "earshot"},
	} {
		if out, err := c.cmd(step[0], step[1:]...).CombinedOutput(); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			c.Stop()
			return nil, fmt.Errorf("%s: %v\n%s\n%s", strings.Join(step, " "), err, out, log)
		}
	}
	return c, nil
}

// watch starts the cluster's watchdog: a shell in a session of its own
// (no signal to this process's group reaches it) that reads a pipe only
// this process can write to. The pipe ends when this process closes it or
// ends, and the watchdog then stops the server and removes the directory.
func (c *Cluster) watch() error {
	r, w, err := os.Pipe() // close-on-exec: no other child inherits the write end
	if err != nil {
		return err
	}
	defer r.Close()
	stop := c.cmd("pg_ctl", "-D", c.data(), "-m", "immediate", "stop")
	c.watchdog = exec.Command("/bin/sh", append([]string{"-c", `cat >/dev/null; "$@" >/dev/null 2>&1; rm -rf "$0"`, c.Dir}, stop.Args...)...)
	c.watchdog.Stdin = r
	c.watchdog.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := c.watchdog.Start(); err != nil {
		w.Close()
		return fmt.Errorf("pgtest: the cluster's watchdog: %w", err)
	}
	c.lifeline = w
	return nil
}

func (c *Cluster) startCommand() []string {
	return []string{"pg_ctl", "-D", c.data(), "-l", filepath.Join(c.Dir, "server.log"), "-w", "-o", c.settings, "start"}
}

// StopServer stops the server (a fast shutdown: its connections are cut),
// keeping its data, as an operator's restart begins.
func (c *Cluster) StopServer() error {
	if out, err := c.cmd("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "stop").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// StartServer starts a stopped server again on the same data.
func (c *Cluster) StartServer() error {
	start := c.startCommand()
	if out, err := c.cmd(start[0], start[1:]...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl start: %v\n%s", err, out)
	}
	return nil
}

// Stop stops the cluster and removes its directory (through its watchdog,
// the one way a cluster ends).
func (c *Cluster) Stop() {
	c.lifeline.Close()
	c.watchdog.Wait()
}

var shared struct {
	once    sync.Once
	cluster *Cluster
	err     error
	n       atomic.Int64
}

// Database is a new, empty database in a cluster the test binary shares
// (started on first use; StopShared stops it), for suites that open many
// catalogs.
func Database(t testing.TB) string {
	t.Helper()
	shared.once.Do(func() { shared.cluster, shared.err = start(false) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	address, err := shared.cluster.CreateDatabase(fmt.Sprintf("t%d", shared.n.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return address
}

// CreateDatabase makes a new, empty database in the cluster and returns
// its address.
func (c *Cluster) CreateDatabase(name string) (string, error) {
	if out, err := c.cmd("createdb", "-h", c.Dir, "-U", "earshot", name).CombinedOutput(); err != nil {
		return "", fmt.Errorf("createdb: %v\n%s", err, out)
	}
	return c.address(name), nil
}

// StopShared stops the shared cluster, if one started (TestMain, after
// the tests).
func StopShared() {
	if shared.cluster != nil {
		shared.cluster.Stop()
	}
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

func (c *Cluster) cmd(name string, args ...string) *exec.Cmd {
	return c.run(filepath.Join(c.bin, name), args...)
}

// ServerPID is the process id of the cluster's server (the postmaster,
// parent of every backend), from its pid file.
func (c *Cluster) ServerPID() (int, error) {
	raw, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(raw), "\n")
	return strconv.Atoi(strings.TrimSpace(first))
}

// URL is the earshot database's address, as --catalog takes it.
func (c *Cluster) URL() string { return c.address("earshot") }

func (c *Cluster) address(database string) string {
	return "postgres://earshot@/" + database + "?host=" + c.Dir + "&sslmode=disable"
}
