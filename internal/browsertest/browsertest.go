// Package browsertest drives Debian's Chromium (which the Makefile
// installs) for the web console's end-to-end tests: a headless browser, a
// page's screenshots at desktop and phone widths, and its accessibility
// checked with axe-core (which make deps installs into web/node_modules).
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// oneBrowser is held by the test whose browser runs.
var oneBrowser = make(chan struct{}, 1)

// Browser starts a headless Chromium with the flags this network needs
// (no background connections) and a fresh profile, for the test's
// lifetime, with the extra options given. EARSHOT_CHROMIUM names another
// browser than /usr/bin/chromium.
func Browser(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := os.Getenv("EARSHOT_CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(path); err != nil {
		t.Fatalf("no browser at %s (make deps installs Debian's chromium): %v", path, err)
	}
	// One browser at a time in a test binary: the tests that drive one run
	// in parallel with the rest, and several browsers at once on a small
	// machine would starve each other into their timeouts.
	oneBrowser <- struct{}{}
	t.Cleanup(func() { <-oneBrowser })
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()))
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}

// Shoot saves the page as PNGs at desktop and phone widths into dir
// (EARSHOT_SCREENSHOTS when set), named name-desktop.png and
// name-phone.png, and leaves the page at desktop width.
func Shoot(t testing.TB, ctx context.Context, dir, name string) {
	t.Helper()
	if env := os.Getenv("EARSHOT_SCREENSHOTS"); env != "" {
		dir = env
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, size := range []struct {
		label string
		w, h  int64
	}{{"desktop", 1280, 800}, {"phone", 390, 844}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size.w, size.h)); err != nil {
			t.Fatal(err)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+size.label+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
}

// Accessible checks the page with axe-core (WCAG 2.1 A and AA rules:
// labels, contrast, names, landmarks), read from web/node_modules under
// repo, and fails the test on each violation.
func Accessible(t testing.TB, ctx context.Context, repo, name string) {
	t.Helper()
	axe, err := os.ReadFile(filepath.Join(repo, "web", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (make deps installs it): %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(axe)+";true")); err != nil {
		t.Fatal(err)
	}
	violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => r.violations.map(v => v.id + " (" + v.impact + "): " + v.nodes.map(n => n.target.join(" ")).join(", ")))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range violations {
		t.Errorf("%s page: accessibility: %s", name, v)
	}
}

// Keyboard checks that the first Tab on the page reaches its skip link:
// keyboard users get past the navigation at once.
func Keyboard(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur && (document.activeElement.blur(), true)`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	focused, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.textContent.trim()`))
	if err != nil {
		t.Fatal(err)
	}
	if focused != "Skip to content" {
		t.Errorf("%s page: the first Tab reaches %q, not the skip link", name, focused)
	}
}

// TextAfter runs steps in the page, then gives the text of sel, failing
// the test on any error.
func TextAfter(t testing.TB, ctx context.Context, sel string, steps ...chromedp.Action[chromedp.Void]) string {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// Resolve makes the browser reach host at this machine's loopback
// address: a site of its own name, not localhost, which browsers treat as
// any other site reached over plain HTTP.
func Resolve(host string) chromedp.ExecAllocatorOption {
	return chromedp.Flag("host-resolver-rules", "MAP "+host+" 127.0.0.1")
}

// Until waits for a JavaScript condition in the page to hold (the page's
// scripts answer in their own time), failing the test after timeout.
func Until(t testing.TB, ctx context.Context, condition string, timeout time.Duration) {
	t.Helper()
	var last error
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("Boolean("+condition+")"))
		if err == nil && ok {
			return
		}
		last = err
	}
	t.Fatalf("waited %s for %s (%v)", timeout, condition, last)
}
