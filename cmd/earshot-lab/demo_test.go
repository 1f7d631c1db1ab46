package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/cli"
	"github.com/earshot/earshot/internal/cli/clitest"
	"github.com/spf13/cobra"
)

// make run's promise: on a fresh data directory the demo builds, then the
// server answers every printed curl command with results, and earshot sql
// answers beside it (through the server: the catalog file is the server's).
// The analysts' examples of docs/analyst-sql.md run against the same data. Run
// again with --if-empty, the demo leaves the data alone and prints the
// same commands.
func TestDemoThenServe(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed to run the printed commands (make deps installs it)", tool)
		}
	}
	data := t.TempDir()
	// The printed commands are run as printed: the serve line's address is
	// the one the curls call.
	addr := clitest.FreeAddr(t)
	notes, err := run(t, "demo", "--data", data, "--chats", "60", "--calls", "1", "--addr", addr)
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, notes)
	}
	if want := "earshot serve --data " + data + " --addr " + addr; !strings.Contains(notes, want) {
		t.Fatalf("the demo does not print %q:\n%s", want, notes)
	}
	if want := `2 evaluations of the "Call quality" form wait in its Queue`; !strings.Contains(notes, want) {
		t.Errorf("the demo has no QA work for the console (%q):\n%s", want, notes)
	}
	stop := clitest.StartServeOn(t, func() *cobra.Command { return cli.Root(labCommands...) }, addr, "--data", data, "--schedule-ingest", "off")
	defer stop()

	var prelude []string
	var curls []string
	var sqlLine string
	for _, line := range strings.Split(notes, "\n") {
		switch {
		case strings.HasPrefix(line, "export EARSHOT="), strings.HasPrefix(line, "export TOKEN="):
			prelude = append(prelude, line)
		case strings.HasPrefix(line, "curl "):
			curls = append(curls, line)
		case strings.HasPrefix(line, "earshot sql "):
			sqlLine = line
		}
	}
	if len(prelude) != 2 || len(curls) < 8 || sqlLine == "" {
		t.Fatalf("the demo printed no usable commands:\n%s", notes)
	}
	for _, c := range curls {
		out, err := exec.Command("bash", "-c", "set -eo pipefail; "+strings.Join(prelude, "; ")+"; "+c).CombinedOutput()
		body := strings.TrimSpace(string(out))
		if err != nil || body == "" || body == "[]" || body == "null" || strings.Contains(body, `"status":`) && strings.Contains(body, `"title":`) {
			t.Errorf("%s\n→ %v: %s", c, err, body)
		}
		if strings.Contains(c, " -D - ") && !strings.HasPrefix(body, "HTTP/1.1 200") {
			t.Errorf("%s\n→ %s", c, body)
		}
	}

	query := regexp.MustCompile(`"(.*)"$`).FindStringSubmatch(sqlLine)
	out, err := run(t, "sql", "--data", data, query[1])
	if err != nil || !strings.Contains(out, "Greeting") || !strings.Contains(out, "(8 rows)") {
		t.Errorf("%s\n→ %v\n%s", sqlLine, err, out)
	}
	out, err = run(t, "sql", "--data", data, "--format", "csv", "select count(*) AS n from conversations")
	if err != nil || out != "n\n61\n" {
		t.Errorf("count of conversations while serving: %v %q", err, out)
	}
	for i, example := range analystSQLExamples(t) {
		out, err := run(t, "sql", "--data", data, "--org", "demo", example)
		if err != nil || strings.Contains(out, "(0 rows)") {
			t.Errorf("analysts' guide example %d:\n%s\n→ %v\n%s", i+1, example, err, out)
		}
	}

	again, err := run(t, "demo", "--data", data, "--if-empty")
	if err != nil || !strings.Contains(again, "already has data") || !strings.Contains(again, curls[0]) {
		t.Fatalf("demo --if-empty on a built data directory: %v\n%s", err, again)
	}
}

// analystSQLExamples are the ```sql blocks of the analysts' guide.
func analystSQLExamples(t *testing.T) []string {
	t.Helper()
	guide, err := os.ReadFile("../../docs/analyst-sql.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(guide), -1)
	var out []string
	for _, b := range blocks {
		out = append(out, strings.TrimSpace(b[1]))
	}
	if len(out) < 3 {
		t.Fatalf("the analysts' guide has %d sql examples", len(out))
	}
	return out
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return clitest.Run(t, cli.Root(labCommands...), args...)
}

func startServe(t *testing.T, args ...string) (addr string, stop func() error) {
	t.Helper()
	return clitest.StartServe(t, func() *cobra.Command { return cli.Root(labCommands...) }, args...)
}
