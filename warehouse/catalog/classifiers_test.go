package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func strp(s string) *string { return &s }
func boolp(b bool) *bool    { return &b }

func TestClassifierVersions(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	other, _ := c.Orgs.CreateOrganization(ctx, "other")
	def1 := json.RawMessage(`{"groups":[{"rules":[{"phrases":["cancel"]}]}]}`)
	cl, err := c.Classifiers.CreateClassifier(ctx, org.ID, ClassifierInput{Name: strp("Cancellation"), Type: strp("Classifier"),
		CategoryName: strp("Topics"), Reportable: boolp(true), Groupable: boolp(false), Definition: def1})
	if err != nil || cl.Version != 1 || !cl.IsActive {
		t.Fatalf("%+v %v", cl, err)
	}
	pii, _ := c.Classifiers.CreateClassifier(ctx, org.ID, ClassifierInput{Name: strp("PII"), Type: strp("Core AI Model"), CategoryName: strp("Process"),
		Reportable: boolp(true), Groupable: boolp(true), Definition: json.RawMessage(`{"model":"pii"}`)})
	// Listed now, so that the lists below are the kept ones, dropped by each change.
	if got, _ := c.Classifiers.Classifiers(ctx, org.ID, ClassifierFilter{ActiveOnly: true}); len(got) != 2 {
		t.Fatalf("active after creating: %+v", got)
	}
	if got, _ := c.Classifiers.Classifiers(ctx, other.ID, ClassifierFilter{}); len(got) != 0 {
		t.Fatalf("another organization's list: %+v", got)
	}

	def2 := json.RawMessage(`{"groups":[{"rules":[{"phrases":["cancel","close my account"]}]}]}`)
	up, err := c.Classifiers.UpdateClassifier(ctx, org.ID, cl.ID, ClassifierInput{Definition: def2, IsActive: boolp(false)})
	if err != nil || up.Version != 2 || up.Name != "Cancellation" || up.IsActive || string(up.Definition) != string(def2) {
		t.Fatalf("%+v %v", up, err)
	}
	if v1, err := c.Classifiers.ClassifierVersion(ctx, org.ID, cl.ID, 1); err != nil || string(v1) != string(def1) {
		t.Fatalf("version 1: %s %v", v1, err)
	}
	// Filters: categories and types in any casing, active only, pages by id.
	for _, tt := range []struct {
		f    ClassifierFilter
		want int
	}{
		{ClassifierFilter{}, 2},
		{ClassifierFilter{Categories: []string{"topics"}}, 1},
		{ClassifierFilter{Types: []string{"core ai model", "LLM Model"}}, 1},
		{ClassifierFilter{ActiveOnly: true}, 1},
		{ClassifierFilter{Limit: 1}, 1},
		{ClassifierFilter{LastID: pii.ID}, map[bool]int{true: 1, false: 0}[cl.ID > pii.ID]},
	} {
		got, err := c.Classifiers.Classifiers(ctx, org.ID, tt.f)
		if err != nil || len(got) != tt.want {
			t.Errorf("%+v: %d, want %d (%v)", tt.f, len(got), tt.want, err)
		}
	}
	// Another organization sees nothing of it.
	if _, err := c.Classifiers.Classifier(ctx, other.ID, cl.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := c.Classifiers.UpdateClassifier(ctx, other.ID, cl.ID, ClassifierInput{Name: strp("x")}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if err := c.Classifiers.DeleteClassifier(ctx, other.ID, cl.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// Deleted: gone from lists and lookups, its versions kept.
	if err := c.Classifiers.DeleteClassifier(ctx, org.ID, cl.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Classifiers.Classifier(ctx, org.ID, cl.ID); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if list, _ := c.Classifiers.Classifiers(ctx, org.ID, ClassifierFilter{}); len(list) != 1 || list[0].ID != pii.ID {
		t.Fatalf("%+v", list)
	}
	if _, err := c.Classifiers.ClassifierVersion(ctx, org.ID, cl.ID, 2); err != nil {
		t.Fatal(err)
	}
}

func TestPrivacySettings(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	if s, err := c.Settings.PrivacySettings(ctx, org.ID); err != nil || s.RedactPII {
		t.Fatalf("default %+v %v", s, err)
	}
	if err := c.Settings.SetPrivacySettings(ctx, PrivacySettings{OrgID: org.ID, RedactPII: true}); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Settings.PrivacySettings(ctx, org.ID); !s.RedactPII {
		t.Fatal("not set")
	}
	if err := c.Settings.SetPrivacySettings(ctx, PrivacySettings{OrgID: "nope", RedactPII: true}); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

// A run is interrupted when its process stopped beating, on whatever
// host: runs of a process that beats, or that started since, stay.
func TestFailInterruptedRuns(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	dead, _ := c.Jobs.StartJobRunFor(ctx, "reclassify", "box:100", "o", json.RawMessage(`{}`))
	alive, _ := c.Jobs.StartJobRunFor(ctx, "reclassify", "box:200", "o", json.RawMessage(`{}`))
	elsewhere, _ := c.Jobs.StartJobRunFor(ctx, "reclassify", "otherbox:100", "o", json.RawMessage(`{}`))
	since := time.Now()
	for _, owner := range []string{"box:200", "otherbox:100"} {
		if err := c.Jobs.Heartbeat(ctx, owner); err != nil {
			t.Fatal(err)
		}
	}
	young, _ := c.Jobs.StartJobRunFor(ctx, "reclassify", "box:300", "o", json.RawMessage(`{}`))
	if n, err := c.Jobs.FailInterruptedRuns(ctx, since); err != nil || n != 1 {
		t.Fatalf("%d %v", n, err)
	}
	for id, want := range map[string]string{dead.ID: "failed", alive.ID: "running", elsewhere.ID: "running", young.ID: "running"} {
		r, err := c.Jobs.OrgJobRun(ctx, "o", id)
		if err != nil || r.Status != want {
			t.Errorf("%s: %s %v, want %s", id, r.Status, err, want)
		}
	}
}
