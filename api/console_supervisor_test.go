package api

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/browsertest"
)

// A supervisor finds who skips a step: on the dashboard, one click on the
// "Identity verification" heading of the by-agent table puts the agent
// with the lowest rate first — though the busiest-first order had them on
// the table's second page — and that agent's link opens their
// conversations over the dashboard's range.
func TestConsoleSupervisorFindsWhoSkipsAStep(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	mustStatus(t, e.jsonReq("POST", "/Conversations/Classifiers", tok, classifierBody("Identity verification", "Classifier", "Process",
		`{"groups":[{"rules":[{"phrases":["verify your identity"],"speaker":"Agent"}]}]}`)), http.StatusCreated)
	chat := func(agentLine string) string {
		return `{"messages":[{"participant":"Agent","text":"` + agentLine + `","timestamp":"2025-10-03T10:00:00Z"},` +
			`{"participant":"Customer","text":"I want to change my address.","timestamp":"2025-10-03T10:00:04Z"}]}`
	}
	const agents = 30
	lowest := fmt.Sprintf("A%02d", agents-1) // last but one by name: the table's second page in its first order
	for i := 1; i <= agents; i++ {
		code := fmt.Sprintf("A%02d", i)
		lines := []string{"First I need to verify your identity.", "How can I help?"} // half
		switch code {
		case lowest:
			lines = []string{"How can I help?", "What can I do for you?"}
		case "A05":
			lines = []string{"First I need to verify your identity.", "Let me verify your identity."}
		}
		for j, line := range lines {
			mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team, "AgentCode", code), file(fmt.Sprintf("%s-%d.json", code, j), chat(line))), 200)
		}
	}
	e.runIngest(t)
	ctx, _ := supervisorOnDashboard(t, e, tok, f)
	page := browsertest.TextAfter(t, ctx, "main")
	if !strings.Contains(page, "agents 1–25 of 30") {
		t.Errorf("the by-agent table's pages: %q", page)
	}
	first := func() string {
		t.Helper()
		return strings.Join(strings.Fields(browsertest.TextAfter(t, ctx, "#agents-table tbody tr")), " ")
	}
	if row := first(); strings.HasPrefix(row, lowest) {
		t.Fatalf("the busiest-first order already starts with %s: %q", lowest, row)
	}
	browsertest.Shoot(t, ctx, "screenshots", "dashboard-agents")
	browsertest.Accessible(t, ctx, "..", "dashboard-agents")

	// One click.
	if err := chromedp.Do(ctx, chromedp.Click(`//table[@id="agents-table"]/thead//a[text()="Identity verification (% yes)"]`),
		chromedp.WaitVisible(`#agents-table th[aria-sort="ascending"]`)); err != nil {
		t.Fatal(err)
	}
	sorted := browsertest.TextAfter(t, ctx, `#agents-table th[aria-sort="ascending"]`)
	if row := first(); sorted != "Identity verification (% yes)" || row != lowest+" 2 — 0.0 %" {
		t.Errorf("sorted by %q, the first agent: %q", sorted, row)
	}
	browsertest.Shoot(t, ctx, "screenshots", "dashboard-lowest")
	// Their conversations, over the dashboard's range.
	count, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => { document.querySelector("#agents-table tbody a").click(); return 0 })()`))
	if err != nil || count != 0 {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible("#agent")); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[document.getElementById("agent").value, document.getElementById("from").value,
		String(document.querySelectorAll("main table tbody tr").length)]`))
	if err != nil || len(rows) != 3 || rows[0] != lowest || rows[2] != "2" {
		t.Errorf("the agent's conversations: %v (%v)", rows, err)
	}
}

// supervisorOnDashboard gives the supervisor ann View on the fixture's site
// and a password, and signs her in to the console in a browser, on the
// dashboard; it returns the browser and the console's base URL.
func supervisorOnDashboard(t *testing.T, e *testEnv, tok string, f orgFixture) (context.Context, string) {
	t.Helper()
	mustStatus(t, e.jsonReq("PUT", "/UserHierarchy/"+f.user+"/"+f.site, tok, map[string]any{"accessLevel": "View", "permissions": []string{"Chat"}}), 200)
	hash, _ := oauth.HashSecret("correct horse battery")
	if err := e.cat.People.SetPassword(context.Background(), e.org.ID, f.user, hash); err != nil {
		t.Fatal(err)
	}
	server := httptest.NewServer(e.srv)
	t.Cleanup(server.Close)
	base := strings.Replace(server.URL, "127.0.0.1", "localhost", 1)
	ctx := browsertest.Browser(t)
	browsertest.TextAfter(t, ctx, "main", chromedp.Navigate(base+"/console/dashboard"), chromedp.WaitVisible("#password"),
		chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", "ann"), chromedp.SetValue("#password", "correct horse battery"),
		chromedp.Submit("#password"), chromedp.WaitVisible("#agents-table"))
	return ctx, base
}
