package sphinx

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline/asr"
)

func TestRecognizeFliteSpeech(t *testing.T) {
	rec, err := Engine{}.New(asr.Model{})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	pcm, err := synth.Speak(context.Background(), filepath.Join(t.TempDir(), "s.wav"), synth.AgentVoice, "please find restaurants in san jose")
	if err != nil {
		t.Fatal(err)
	}
	words, err := rec.Recognize(pcm)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	var last int64
	for _, w := range words {
		text = append(text, w.Text)
		if w.StartMs < last || w.EndMs <= w.StartMs || w.EndMs > int64(len(pcm))*1000/asr.SampleRate+10 {
			t.Fatalf("word times out of order or outside the audio: %+v", words)
		}
		if w.Confidence < 0 || w.Confidence > 1 {
			t.Fatalf("confidence %v", w.Confidence)
		}
		last = w.EndMs
	}
	if got := strings.Join(text, " "); got != "please find restaurants in san jose" {
		t.Fatalf("recognized %q", got)
	}
	// A new stream per call: the same decoder decodes again.
	if again, _ := rec.Recognize(pcm); len(again) != len(words) {
		t.Fatalf("second decode: %+v", again)
	}
	engine, model := rec.Name()
	if engine != "pocketsphinx" || model != "en-us+en-us.lm.bin" {
		t.Fatalf("name %s %s", engine, model)
	}
}

func TestMissingModel(t *testing.T) {
	_, err := Engine{}.New(asr.Model{LanguageModel: "/nonexistent.lm"})
	if err == nil || !strings.Contains(err.Error(), "language model") {
		t.Fatalf("err %v", err)
	}
}

func TestSpoken(t *testing.T) {
	for in, want := range map[string]string{"<s>": "", "</s>": "", "<sil>": "", "[NOISE]": "", "++UH++": "", "read(2)": "read", "jose": "jose"} {
		got, ok := spoken(in)
		if got != want || ok != (want != "") {
			t.Errorf("spoken(%q) = %q %v", in, got, ok)
		}
	}
}
