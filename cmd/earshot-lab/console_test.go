package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/internal/browsertest"
)

// make run's console: the demo prints a user and password; signed in with
// them, the dashboard counts the demo's processed conversations, in a
// real browser.
func TestDemoConsole(t *testing.T) {
	data := t.TempDir()
	notes, err := run(t, "demo", "--data", data, "--chats", "30", "--calls", "0", "--archives", "1")
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, notes)
	}
	sign := regexp.MustCompile(`/console — organization "demo", user (\S+), password (\S+)`).FindStringSubmatch(notes)
	processed := regexp.MustCompile(`with (\d+) processed conversations`).FindStringSubmatch(notes)
	if sign == nil || processed == nil {
		t.Fatalf("the demo printed no console user or count:\n%s", notes)
	}
	addr, stop := startServe(t, "--data", data, "--schedule-ingest", "off")
	defer stop()
	base := "http://" + strings.Replace(addr, "127.0.0.1", "localhost", 1)

	ctx := browsertest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/console"), chromedp.WaitVisible("#password"),
		chromedp.SetValue("#organization", "demo"), chromedp.SetValue("#username", sign[1]), chromedp.SetValue("#password", sign[2]),
		chromedp.Submit("#password"), chromedp.WaitVisible("main table"),
		chromedp.Navigate(base+"/console/dashboard"), chromedp.WaitVisible("#hits-table")); err != nil {
		t.Fatal(err)
	}
	caption, err := chromedp.Run(ctx, chromedp.Text("#conversations-table caption"))
	if err != nil {
		t.Fatal(err)
	}
	if want := processed[1] + " conversation(s) in the range"; caption != want {
		t.Errorf("the demo's dashboard says %q, want %q", caption, want)
	}
	drawn, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Chart.getChart(document.getElementById("conversations-chart")).data.datasets[0].data.reduce((a, b) => a + b, 0)`))
	if err != nil || strconv.Itoa(int(drawn)) != processed[1] {
		t.Errorf("the chart drew %v conversations (%v), want %s", drawn, err, processed[1])
	}
	browsertest.Shoot(t, ctx, "screenshots", "demo-dashboard")
	browsertest.Accessible(t, ctx, "../..", "demo dashboard")
}
