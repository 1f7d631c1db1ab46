package lm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
)

// End to end: a model built from a few lines of a restaurant line's
// transcripts (with a name no general dictionary has) is converted,
// loaded by PocketSphinx and recognizes a sentence the general model gets
// wrong.
func TestBuildFilesRecognizes(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite not installed (make deps installs it)")
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "transcripts.txt")
	os.WriteFile(text, []byte(strings.Join([]string{
		"I would like to dine in at Gochi in Saratoga.",
		"Do you want to dine in at Gochi?",
		"Gochi is a Japanese restaurant in Saratoga.",
		"I want to book a table at Gochi for 2 people.",
		"Please find restaurants in San Jose.",
		"Would you like to book a table in Saratoga?",
	}, "\n")), 0o600)
	files, stats, err := BuildFiles(context.Background(), []string{text}, "", Options{}, filepath.Join(dir, "out"), "gochi")
	if err != nil {
		t.Fatal(err)
	}
	if stats.Sentences != 6 || stats.LetterToSound == 0 || stats.Dropped != 0 {
		t.Fatalf("stats %+v", stats)
	}
	pcm, err := synth.Speak(context.Background(), filepath.Join(dir, "s.wav"), synth.AgentVoice, "I would like to dine in at Gochi in Saratoga")
	if err != nil {
		t.Fatal(err)
	}
	recognize := func(m asr.Model) string {
		rec, err := sphinx.Engine{}.New(m)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Close()
		words, err := rec.Recognize(pcm)
		if err != nil {
			t.Fatal(err)
		}
		var text []string
		for _, w := range words {
			text = append(text, w.Text)
		}
		return strings.Join(text, " ")
	}
	general := recognize(asr.Model{})
	domain := recognize(asr.Model{LanguageModel: files.LanguageModel, Dictionary: files.Dictionary})
	if domain != "i would like to dine in at gochi in saratoga" || domain == general {
		t.Fatalf("domain model heard %q (general: %q)", domain, general)
	}
	t.Logf("general model: %q; domain model: %q", general, domain)
}
