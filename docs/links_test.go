// Package docs holds the project's guides; its test keeps their links and
// the source paths they name true.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// A path of the repository in backticks: a top-level folder of it, then
	// more of the path.
	sourcePath = regexp.MustCompile("`((?:api|cmd|docs|internal|jobs|pipeline|sql|warehouse)/[A-Za-z0-9_./-]*)`")
)

// Every relative link of the README and the guides leads to a file of the
// repository, and every repository path they name in backticks exists.
func TestLinksAndPathsResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 5 {
		t.Fatalf("found only %v", pages)
	}
	// Folders the tests write (screenshots), ignored by git: they exist only
	// once a test has run, so a guide may name them before.
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, line := range strings.Split(string(ignore), "\n") {
		if strings.HasPrefix(line, "/") && strings.HasSuffix(line, "/") {
			outputs = append(outputs, strings.TrimPrefix(line, "/"))
		}
	}
	written := func(path string) bool {
		for _, o := range outputs {
			if strings.HasPrefix(path, o) {
				return true
			}
		}
		return false
	}
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, page)
		for _, m := range markdownLink.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
			}
		}
		for _, m := range sourcePath.FindAllStringSubmatch(string(text), -1) {
			path := strings.TrimRight(m[1], ".")
			if strings.ContainsAny(path, "*") || written(path) {
				continue
			}
			checked++
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("%s names %s, which does not exist", name, path)
			}
		}
	}
	t.Logf("%d links and paths checked", checked)
	if checked < 20 {
		t.Fatalf("only %d links and paths checked", checked)
	}
}
