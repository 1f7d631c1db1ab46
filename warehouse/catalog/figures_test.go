package catalog

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestKeptFiguresReplacedAndDroppedWithTheirFiles(t *testing.T) {
	ctx := context.Background()
	c := openTest(t)
	day1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	day2 := day1.AddDate(0, 0, 1)
	keep := func(org string, d time.Time, current []string, kept ...KeptFigures) {
		t.Helper()
		if err := c.Manifest.KeepFigures(ctx, org, d, Stale{AllBut: current}, kept); err != nil {
			t.Fatal(err)
		}
	}
	read := func(org string, days ...time.Time) map[string]string {
		t.Helper()
		kept, err := c.Manifest.KeptFigures(ctx, org, days)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, k := range kept {
			out[k.Date.Format(time.DateOnly)+" "+k.Signature] = k.Figures
		}
		return out
	}
	keep("org-a", day1, []string{"s1", "s2"}, KeptFigures{Signature: "s1", Figures: "one"}, KeptFigures{Signature: "s2", Figures: "two"})
	keep("org-a", day2, []string{"s3"}, KeptFigures{Signature: "s3", Figures: "three"})
	keep("org-b", day1, []string{"s1"}, KeptFigures{Signature: "s1", Figures: "b's"})

	if got := read("org-a", day1); len(got) != 2 || got["2026-03-01 s1"] != "one" || got["2026-03-01 s2"] != "two" {
		t.Fatalf("org-a's first day = %v", got)
	}
	if got := read("org-a", day2.Add(13*time.Hour)); len(got) != 1 || got["2026-03-02 s3"] != "three" {
		t.Fatalf("org-a's second day (asked by an hour of it) = %v", got)
	}
	if got := read("org-b", day1, day2); len(got) != 1 || got["2026-03-01 s1"] != "b's" {
		t.Fatalf("org-b's days = %v", got)
	}
	if got := read("org-a"); len(got) != 0 {
		t.Fatalf("no days asked, got %v", got)
	}
	// Of the signatures asked, those kept for that organization's day.
	for _, tc := range []struct {
		org        string
		day        time.Time
		signatures []string
		want       string
	}{
		{"org-a", day1, []string{"s1", "s3", "s9"}, "[s1]"},
		{"org-a", day2.Add(13 * time.Hour), []string{"s1", "s3"}, "[s3]"},
		{"org-b", day1, []string{"s2"}, "[]"},
		{"org-a", day1, nil, "[]"},
	} {
		got, err := c.Manifest.KeptSignatures(ctx, tc.org, tc.day, tc.signatures)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if fmt.Sprint(got) != tc.want {
			t.Errorf("kept of %v for %s's %s: %v, want %s", tc.signatures, tc.org, tc.day.Format(time.DateOnly), got, tc.want)
		}
	}

	// The first day's files changed: s1 is gone, s2 stays, s4 is new; a
	// figures row written again replaces the last.
	keep("org-a", day1, []string{"s2", "s4"}, KeptFigures{Signature: "s4", Figures: "four"}, KeptFigures{Signature: "s2", Figures: "two again"})
	if got := read("org-a", day1, day2); len(got) != 3 || got["2026-03-01 s2"] != "two again" || got["2026-03-01 s4"] != "four" || got["2026-03-02 s3"] != "three" {
		t.Fatalf("after the first day changed = %v", got)
	}
	if got := read("org-b", day1); len(got) != 1 {
		t.Fatalf("another organization's figures were dropped: %v", got)
	}

	// A keep that does not know every cluster of the day drops only the
	// former clusters named (here s2, joined into s5), and nothing when
	// none is.
	if err := c.Manifest.KeepFigures(ctx, "org-a", day1, Stale{Former: []string{"s2"}}, []KeptFigures{{Signature: "s5", Figures: "five"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Manifest.KeepFigures(ctx, "org-a", day1, Stale{}, []KeptFigures{{Signature: "s6", Figures: "six"}}); err != nil {
		t.Fatal(err)
	}
	if got := read("org-a", day1); len(got) != 3 || got["2026-03-01 s4"] != "four" || got["2026-03-01 s5"] != "five" || got["2026-03-01 s6"] != "six" {
		t.Fatalf("after keeps that named their former clusters = %v", got)
	}
}
