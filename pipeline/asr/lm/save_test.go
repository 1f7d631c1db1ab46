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

// gochiLines are a few lines of a restaurant line's transcripts, with a
// name no general dictionary has.
var gochiLines = []string{
	"I would like to dine in at Gochi in Saratoga.",
	"Do you want to dine in at Gochi?",
	"Gochi is a Japanese restaurant in Saratoga.",
	"I want to book a table at Gochi for 2 people.",
	"Please find restaurants in San Jose.",
	"Would you like to book a table in Saratoga?",
}

// recognizer speaks text with flite and returns what a model heard.
func recognizer(t *testing.T, text string) func(m asr.Model) string {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite not installed (make deps installs it)")
	}
	pcm, err := synth.Speak(context.Background(), filepath.Join(t.TempDir(), "s.wav"), synth.AgentVoice, text)
	if err != nil {
		t.Fatal(err)
	}
	return func(m asr.Model) string {
		rec, err := sphinx.Engine{}.New(m)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Close()
		words, err := rec.Recognize(pcm)
		if err != nil {
			t.Fatal(err)
		}
		var heard []string
		for _, w := range words {
			heard = append(heard, w.Text)
		}
		return strings.Join(heard, " ")
	}
}

func buildGochi(t *testing.T, opt Options) (Files, Stats) {
	t.Helper()
	dir := t.TempDir()
	text := filepath.Join(dir, "transcripts.txt")
	os.WriteFile(text, []byte(strings.Join(gochiLines, "\n")), 0o600)
	files, stats, err := BuildFiles(context.Background(), []string{text}, "", opt, filepath.Join(dir, "out"), "gochi")
	if err != nil {
		t.Fatal(err)
	}
	return files, stats
}

// A domain model mixed with the general one hears the domain's own name
// and the general words its few lines never had; the domain model alone
// cannot.
func TestMixedModelKnowsGeneralWords(t *testing.T) {
	recognize := recognizer(t, "my doctor would like to dine in at Gochi")
	files, _ := buildGochi(t, Options{GeneralWeight: 0.5})
	if !strings.HasSuffix(files.LanguageModel, sphinx.MixSuffix) {
		t.Fatalf("language model %s", files.LanguageModel)
	}
	mixed := recognize(asr.Model{LanguageModel: files.LanguageModel, Dictionary: files.Dictionary})
	domain := recognize(asr.Model{LanguageModel: strings.TrimSuffix(files.LanguageModel, sphinx.MixSuffix) + ".lm.bin", Dictionary: files.Dictionary})
	if !strings.Contains(mixed, "doctor") || !strings.Contains(mixed, "gochi") || strings.Contains(domain, "doctor") {
		t.Fatalf("mixed model heard %q, domain model %q", mixed, domain)
	}
	t.Logf("mixed model: %q; domain model: %q", mixed, domain)
}

// End to end: a model built from a few lines of a restaurant line's
// transcripts (with a name no general dictionary has) is converted,
// loaded by PocketSphinx and recognizes a sentence the general model gets
// wrong.
func TestBuildFilesRecognizes(t *testing.T) {
	recognize := recognizer(t, "I would like to dine in at Gochi in Saratoga")
	files, stats := buildGochi(t, Options{})
	if stats.Sentences != 6 || stats.LetterToSound == 0 || stats.Dropped != 0 {
		t.Fatalf("stats %+v", stats)
	}
	general := recognize(asr.Model{})
	domain := recognize(asr.Model{LanguageModel: files.LanguageModel, Dictionary: files.Dictionary})
	if domain != "i would like to dine in at gochi in saratoga" || domain == general {
		t.Fatalf("domain model heard %q (general: %q)", domain, general)
	}
	t.Logf("general model: %q; domain model: %q", general, domain)
}
