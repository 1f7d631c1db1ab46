package jobs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/audio"
	"github.com/earshot/earshot/warehouse/catalog"
)

// A call whose customer reads a card number out, in an organization that
// redacts and keeps originals: the transcript says [card], and the kept
// recording is silent where the redacted words were, on both channels,
// while the agent's greeting is as loud as it was.
func TestRedactedCallIsSilenced(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	if err := e.cat.Settings.SetPrivacySettings(ctx, catalog.PrivacySettings{OrgID: e.org.ID, RedactPII: true, KeepOriginals: true}); err != nil {
		t.Fatal(err)
	}
	call, err := synth.Stereo(ctx, []synth.Turn{
		{Speaker: "Agent", Text: "Thank you for calling. How would you like to pay today?"},
		{Speaker: "Customer", Text: "By card please. My card number is four one one one one one one one one one one one one one one one."},
		{Speaker: "Agent", Text: "Thank you, that is all set."},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	id := e.stageAs(t, catalog.MediaAudio, "pay.wav", call.WAV, nil)
	if _, err := e.runner.Run(ctx, "ingest"); err != nil {
		t.Fatal(err)
	}
	its := mustInteractions(t, e, []string{id})
	transcripts, err := e.reader.Transcripts(ctx, e.org.ID, its)
	if err != nil {
		t.Fatal(err)
	}
	var redacted []catalog.TranscriptWord
	var text []string
	for _, s := range transcripts[id] {
		text = append(text, s.Speaker+": "+s.Text)
		for _, w := range s.Words {
			if w.Word == pipeline.RedactedWord {
				redacted = append(redacted, w)
			}
		}
	}
	if joined := strings.Join(text, " | "); !strings.Contains(joined, "[card]") || len(redacted) < 10 {
		t.Fatalf("the transcript %q has %d redacted words", joined, len(redacted))
	}
	// The kept recording, decoded: the loudness of the redacted words'
	// stretch and of the agent's greeting.
	rc, err := e.bucket.Get(ctx, *its[0].StagedKey)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	kept := filepath.Join(t.TempDir(), "kept.wav")
	data, _ := io.ReadAll(rc)
	if err := os.WriteFile(kept, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var samples []int16
	if _, err := audio.Decode(ctx, kept, -1, func(chunk []int16) error { samples = append(samples, chunk...); return nil }); err != nil {
		t.Fatal(err)
	}
	loudness := func(fromMs, toMs int64) int64 {
		var sum int64
		for _, s := range samples[fromMs*16 : min(toMs*16, int64(len(samples)))] {
			sum += max(int64(s), -int64(s))
		}
		return sum / max((toMs-fromMs)*16, 1)
	}
	first, last := redacted[0], redacted[len(redacted)-1]
	if inside := loudness(first.StartMs, last.EndMs); inside != 0 {
		t.Errorf("the redacted stretch %d–%d ms has mean amplitude %d, want silence", first.StartMs, last.EndMs, inside)
	}
	greeting := transcripts[id][0]
	if outside := loudness(greeting.StartMs, greeting.EndMs); outside < 100 {
		t.Errorf("the agent's greeting has mean amplitude %d: more than the redaction was silenced", outside)
	}
}
