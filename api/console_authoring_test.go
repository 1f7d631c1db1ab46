package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/earshot/earshot/api/oauth"
	"github.com/earshot/earshot/internal/browsertest"
)

// Classifier authoring in a real browser: an administrator writes a
// phrase rule (a broken definition first, refused with where it breaks),
// dry-runs it over today with its hits listed, activates it and
// re-classifies today; the API's /ModelResults then has its result. A
// user who does not administer the organization is refused the pages.
func TestConsoleClassifierAuthoring(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	tok := e.token(t)
	f := buildOrg(t, e, tok, "")
	admin := mustStatus(t, e.jsonReq("POST", "/User", tok, map[string]any{"firstName": "Ada", "lastName": "Ng", "userName": "ada",
		"email": "ada@example.com", "roleName": "Administrator"}), 200).id(t)
	chat := func(text string) string {
		return `{"messages":[{"participant":"Agent","text":"Thanks for calling Acme.","timestamp":"2025-10-03T10:00:00Z"},` +
			`{"participant":"Customer","text":"` + text + `","timestamp":"2025-10-03T10:00:04Z"}]}`
	}
	parcel := mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team), file("parcel.json", chat("Where is my parcel? It is late."))), 200).id(t)
	mustStatus(t, e.upload("/TextMedia/Upload", tok, meta("HierarchyId", f.team), file("bill.json", chat("My bill is wrong."))), 200)
	e.runIngest(t)
	hash, _ := oauth.HashSecret("correct horse battery")
	for _, user := range []string{admin, f.user} {
		if err := e.cat.People.SetPassword(context.Background(), e.org.ID, user, hash); err != nil {
			t.Fatal(err)
		}
	}

	server := httptest.NewServer(e.srv)
	defer server.Close()
	base := strings.Replace(server.URL, "127.0.0.1", "localhost", 1)
	ctx := browsertest.Browser(t)
	do := func(sel string, steps ...chromedp.Action[chromedp.Void]) string {
		t.Helper()
		return browsertest.TextAfter(t, ctx, sel, steps...)
	}
	signIn := func(user string) {
		t.Helper()
		do(".who", chromedp.Navigate(base+"/console/sign-in"), chromedp.WaitVisible("#password"),
			chromedp.SetValue("#organization", "acme"), chromedp.SetValue("#username", user), chromedp.SetValue("#password", "correct horse battery"),
			chromedp.Submit("#password"), chromedp.WaitVisible(".who"))
	}

	signIn("ann") // a supervisor: no classifiers for her
	if text := do("main", chromedp.Navigate(base+"/console/classifiers"), chromedp.WaitVisible("main h1")); !strings.Contains(text, "Your role does not allow changing classifiers.") {
		t.Fatalf("a supervisor's classifiers page: %q", text)
	}
	do("main", chromedp.Click(".sign-out button"), chromedp.WaitVisible("#password"))

	signIn("ada")
	do("main", chromedp.Click(`nav a[href="/console/classifiers"]`), chromedp.WaitVisible("#classifiers-table"),
		chromedp.Click(`a[href="/console/classifiers/new"]`), chromedp.WaitVisible("#definition"))
	browsertest.Accessible(t, ctx, "..", "classifier-new")
	broken := `{"groups":[{"rules":[{"phrases":[]}]}]}`
	if text := do("p.error", chromedp.SetValue("#name", "Parcel question"), chromedp.Click("#editor-json"), chromedp.SetValue("#definition", broken),
		chromedp.Click(`#definition ~ button[type="submit"]`), chromedp.WaitVisible("p.error")); !strings.Contains(text, "invalid at") {
		t.Fatalf("a broken definition: %q", text)
	}
	// Written as phrases instead, no JSON.
	saved := do("p.notice", chromedp.Click("#editor-phrases"), chromedp.SetValue("#phrases", "where is my parcel\nmy parcel never came"),
		chromedp.SetValue("#speaker", "Customer"), chromedp.Click(`#definition ~ button[type="submit"]`), chromedp.WaitVisible("#dry-run-heading"))
	if saved != "Saved as version 1." {
		t.Fatalf("after saving: %q", saved)
	}
	if phrases, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("phrases").value + "|" + document.getElementById("speaker").value`)); err != nil ||
		phrases != "where is my parcel\nmy parcel never came|Customer" {
		t.Errorf("the saved rule's phrases: %q (%v)", phrases, err)
	}
	counts := do("#dry-run tbody", chromedp.Click(`form[aria-label="Dry run"] button[type="submit"]`), chromedp.WaitVisible("#dry-run"))
	if got := strings.Join(strings.Fields(counts), " "); got != "2 1 0" {
		t.Errorf("the dry run's evaluated, hits, errors: %q", got)
	}
	// Its hits are named as the list names conversations, with when and
	// whose they are.
	hits, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#dry-run-hits li")].map(li => li.querySelector("a").getAttribute("href") + " " + li.textContent)`))
	if err != nil || len(hits) != 1 || !strings.HasPrefix(hits[0], "/console/conversations/"+parcel+" ") || strings.Count(hits[0], " · ") != 2 {
		t.Errorf("the dry run's hits: %q (%v), want %s, named", hits, err, parcel)
	}
	browsertest.Shoot(t, ctx, "screenshots", "classifier")
	browsertest.Accessible(t, ctx, "..", "classifier")
	// Activated (version 2), then re-classified: from the page without
	// the first save's notice, so that the next notice is the second's.
	location, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	classifier := strings.TrimSuffix(strings.TrimPrefix(location, base+"/console/classifiers/"), "/dry-run") // the dry run's page
	if saved := do("p.notice", chromedp.Navigate(base+"/console/classifiers/"+classifier), chromedp.WaitVisible("#active"),
		chromedp.Click(`#active`), chromedp.Click(`#definition ~ button[type="submit"]`), chromedp.WaitVisible("p.notice")); saved != "Saved as version 2." {
		t.Fatalf("activating: %q", saved)
	}
	notice := do("p.notice", chromedp.Navigate(base+"/console/classifiers/"+classifier), chromedp.WaitVisible("#active"),
		chromedp.Click(`button[formaction$="/reclassify"]`), chromedp.WaitVisible("p.notice"))
	if !strings.Contains(notice, "Re-classifying") || !strings.Contains(notice, "version 2") {
		t.Fatalf("re-classifying: %q", notice)
	}
	e.jobs.Wait()
	// Its page follows it to its end.
	if status := do("#job-status", chromedp.Click("p.notice a"), chromedp.WaitVisible("#job-status")); status != "Succeeded" {
		t.Errorf("the re-classification's page: %q", status)
	}
	browsertest.Accessible(t, ctx, "..", "job")
	var items []struct {
		ConversationID string
		ModelResults   []struct {
			ModelID string
			Result  *bool
		}
	}
	json.Unmarshal(mustStatus(t, e.jsonReq("GET", "/ModelResults/Conversation?conversationIds="+parcel+"&modelIds="+classifier, tok, nil), http.StatusOK).Body.Bytes(), &items)
	if len(items) != 1 || len(items[0].ModelResults) != 1 || items[0].ModelResults[0].Result == nil || !*items[0].ModelResults[0].Result {
		t.Fatalf("/ModelResults after the console's re-classification: %+v", items)
	}

	// Training from a labelled file: one label with one class only is
	// refused naming it; a good file trains "Delivery", installed
	// inactive.
	dir := t.TempDir()
	write := func(name string, lines []string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var good, oneClass []string
	for i := range 15 {
		parcel := fmt.Sprintf(`{"text": "Where is my parcel number %d? The delivery is late.", "labels": ["Delivery"]}`, i)
		good = append(good, parcel, fmt.Sprintf(`{"text": "My bill %d is wrong, the invoice charges me twice.", "labels": []}`, i))
		oneClass = append(oneClass, parcel)
	}
	// train sends a file, then waits for what only the answer has.
	train := func(path, until string) string {
		t.Helper()
		return do(until, chromedp.Navigate(base+"/console/classifiers"), chromedp.WaitVisible("#labels"), chromedp.SetUploadFiles("#labels", []string{path}),
			chromedp.Click(`form[aria-label="Train classifiers"] button[type="submit"]`), chromedp.WaitVisible(until))
	}
	if text := train(write("one-class.jsonl", oneClass), "p.error"); !strings.Contains(text, "cannot train") || !strings.Contains(text, "Delivery") {
		t.Fatalf("a label with one class: %q", text)
	}
	if text := train(write("good.jsonl", good), "p.notice"); !strings.Contains(text, "Training 1 classifier(s) from 30 conversation(s)") {
		t.Fatalf("training: %q", text)
	}
	browsertest.Shoot(t, ctx, "screenshots", "classifiers")
	browsertest.Accessible(t, ctx, "..", "classifiers")
	e.jobs.Wait()
	row := do("#classifiers-table", chromedp.Navigate(base+"/console/classifiers"), chromedp.WaitVisible("#classifiers-table"))
	if !strings.Contains(strings.Join(strings.Fields(row), " "), "Delivery Core AI Model Topics 1 no") {
		t.Fatalf("the trained classifier in the list: %q", row)
	}
}
