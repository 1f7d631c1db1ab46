package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/synth"
)

func TestASRLanguageModelCommand(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "t.txt")
	os.WriteFile(text, []byte("Book a table at Gochi for 2.\nIs Gochi in Saratoga?\n"), 0o600)
	var out bytes.Buffer
	cmd := Root()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"asr", "lm", "--out", filepath.Join(dir, "m"), "--name", "acme", text})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 sentences, 11 words, vocabulary 10", "acme.lm.mix --dictionary " + filepath.Join(dir, "m", "acme.dict")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cmd = Root()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"asr", "lm", "--out", dir, filepath.Join(dir, "missing.txt")})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Fatalf("missing file: %v", err)
	}
}

// A directory of telephone recordings, each with its transcript, becomes
// an adapted acoustic model that the telephone-model setting accepts.
func TestASRAdaptCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, text := range []string{
		"I would like to book a table for two people tonight",
		"Can you find me a flight to Chicago next Monday",
		"What is the balance of my checking account",
		"Please set an alarm for seven in the morning",
		"Is there a hotel near the airport with free parking",
		"I want to rent a car for three days in Denver",
	} {
		name := filepath.Join(dir, fmt.Sprintf("call-%d", i))
		pcm, err := synth.Speak(context.Background(), name+".16k.wav", []string{"awb", "kal16"}[i%2], text)
		if err != nil {
			t.Fatal(err)
		}
		line, err := synth.Telephone(context.Background(), synth.WAV(pcm))
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(name + ".16k.wav")
		os.WriteFile(name+".wav", line, 0o600)
		os.WriteFile(name+".txt", []byte(text+"\n"), 0o600)
	}
	os.WriteFile(filepath.Join(dir, "untranscribed.wav"), nil, 0o600) // no .txt: not a recording to adapt on
	model := filepath.Join(t.TempDir(), "telephone")
	var out bytes.Buffer
	cmd := Root()
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs([]string{"asr", "adapt", "--out", model, dir})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"6 recordings (", "0 left out", "pass 2: log-likelihood per frame", "earshot serve --asr-telephone-model " + model} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	c := defaultConfig()
	c.ASRTelephoneModel = model
	if _, err := c.validate(); err != nil {
		t.Errorf("the adapted model as --asr-telephone-model: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"asr", "adapt", "--out", model, dir}, "exists: name a new directory"},
		{[]string{"asr", "adapt", "--out", filepath.Join(t.TempDir(), "m"), filepath.Join(dir, "untranscribed.wav")}, "has no transcript beside it (untranscribed.txt)"},
		{[]string{"asr", "adapt", "--out", filepath.Join(t.TempDir(), "m"), t.TempDir()}, "no recording with a transcript"},
		{[]string{"asr", "adapt", dir}, "--out is required"},
	} {
		cmd := Root()
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SetArgs(tc.args)
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
