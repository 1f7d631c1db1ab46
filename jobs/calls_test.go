package jobs

import (
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/pipeline/asr/spoken"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lakedb"
)

// overlap is the share of want's words that got has (bag of words).
func overlap(want, got []string) float64 {
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	hit := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}

// A stereo call with the agent on the right channel (the organization's
// setting), a mono MP3 and a stereo call at telephone rate (decoded with
// the telephone acoustic model) become transcripts; silence, a text file
// named .wav and a Spanish call without a Spanish model fail alone, each
// with its reason.
func TestIngestCalls(t *testing.T) {
	ctx := context.Background()
	// The telephone model: the base one under another name, which the
	// transcripts record.
	telephone := filepath.Join(t.TempDir(), "telephone")
	if err := os.Symlink(sphinx.Engine{}.AcousticModel(), telephone); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(in *Ingest) {
		calls := in.Processors[1].(pipeline.Calls)
		calls.Telephone = telephone
		in.Processors[1] = calls
	})
	if err := e.cat.Settings.SetAudioSettings(ctx, catalog.AudioSettings{OrgID: e.org.ID, AgentChannel: 1}); err != nil {
		t.Fatal(err)
	}
	dialogue := []synth.Turn{
		{Speaker: "Agent", Text: "Thank you for calling, how can I help you today?"},
		{Speaker: "Customer", Text: "I want to book a table for two people in San Jose."},
		{Speaker: "Agent", Text: "What time would you like the reservation?"},
		{Speaker: "Customer", Text: "Seven in the evening please."},
	}
	call, err := synth.Stereo(ctx, dialogue, 1)
	if err != nil {
		t.Fatal(err)
	}
	stereoID := e.stageAs(t, catalog.MediaAudio, "call.wav", call.WAV, nil)

	dir := t.TempDir()
	mono := filepath.Join(dir, "mono.mp3")
	pcm, err := synth.Speak(ctx, filepath.Join(dir, "m.wav"), synth.AgentVoice, "Please find restaurants in San Jose.")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "m16.wav"), synth.WAV(pcm), 0o600)
	if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", filepath.Join(dir, "m16.wav"), "-c:a", "libmp3lame", mono).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	monoData, _ := os.ReadFile(mono)
	monoID := e.stageAs(t, catalog.MediaAudio, "mono.mp3", monoData, nil)
	lineData, err := synth.Telephone(ctx, call.WAV)
	if err != nil {
		t.Fatal(err)
	}
	lineID := e.stageAs(t, catalog.MediaAudio, "line.wav", lineData, nil)
	silentID := e.stageAs(t, catalog.MediaAudio, "silent.wav", synth.WAV(make([]int16, 3*16000)), nil)
	textID := e.stageAs(t, catalog.MediaAudio, "notes.wav", []byte("Customer called about a refund.\n"), nil)
	spanishID := e.stageAs(t, catalog.MediaAudio, "hola.wav", call.WAV, func(it *catalog.Interaction) { it.LocaleID = 2058 })
	// Four seconds of loud white noise on both channels: sound, but no words.
	noise := rand.New(rand.NewSource(1))
	hiss := make([]int16, 4*16000)
	for i := range hiss {
		hiss[i] = int16(noise.NormFloat64() * 3000)
	}
	noiseID := e.stageAs(t, catalog.MediaAudio, "noise.wav", synth.WAV(hiss, hiss), nil)

	run, err := e.runner.Run(ctx, "ingest")
	if err != nil {
		t.Fatal(err)
	}
	if run.Counts["uploads"] != 7 || run.Counts["uploads_failed"] != 4 || run.Counts["conversations"] != 3 {
		t.Fatalf("counts %v", run.Counts)
	}
	get := func(id string) catalog.Interaction {
		list, err := e.cat.Interactions.Interactions(ctx, e.org.ID, catalog.InteractionFilter{IDs: []string{id}, Limit: 1})
		if err != nil || len(list) != 1 {
			t.Fatalf("%s: %v %v", id, list, err)
		}
		return list[0]
	}
	for id, reason := range map[string]string{
		silentID:  "the audio is silent",
		textID:    "the file is not readable audio",
		spanishID: "no Spanish model configured",
		noiseID:   "no speech was recognized in the audio",
	} {
		it := get(id)
		if it.Status != catalog.StatusFailedToProcess || len(it.ProcessFailures) != 1 || !strings.Contains(it.ProcessFailures[0].Message, reason) {
			t.Errorf("%s: %s %+v, want %q", it.FileName, it.Status, it.ProcessFailures, reason)
		}
		// Reasons are for clients: none names a file of this machine.
		if msg := it.ProcessFailures[0].Message; strings.Contains(msg, os.TempDir()) || strings.Contains(msg, ".wav:") {
			t.Errorf("%s: the reason %q names a local file", it.FileName, msg)
		}
	}

	stereo, monoIt := get(stereoID), get(monoID)
	wantMs := call.Turns[len(call.Turns)-1].EndMs
	if stereo.Status != catalog.StatusReadyToSample || stereo.CallDurationMillis == nil || *stereo.CallDurationMillis < wantMs {
		t.Fatalf("stereo: %+v", stereo)
	}
	segs, err := e.reader.Transcripts(ctx, e.org.ID, []catalog.Interaction{stereo, monoIt})
	if err != nil {
		t.Fatal(err)
	}
	got := segs[stereoID]
	if len(got) != len(dialogue) {
		t.Fatalf("stereo turns: %+v", got)
	}
	for i, turn := range dialogue {
		g := got[i]
		if g.Speaker != turn.Speaker || overlap(spoken.Words(turn.Text), spoken.Words(g.Text)) < 0.6 ||
			g.StartMs < call.Turns[i].StartMs-300 || g.EndMs > call.Turns[i].EndMs+300 || len(g.Words) == 0 {
			t.Errorf("turn %d: %s %q [%d..%d], want %s %q [%d..%d]", i, g.Speaker, g.Text, g.StartMs, g.EndMs,
				turn.Speaker, turn.Text, call.Turns[i].StartMs, call.Turns[i].EndMs)
		}
	}
	m := segs[monoID]
	if len(m) != 1 || m[0].Speaker != "Speaker" || overlap(spoken.Words("Please find restaurants in San Jose."), spoken.Words(m[0].Text)) < 0.6 {
		t.Fatalf("mono: %+v", m)
	}

	// The conversation rows record the mode, the engine and the model.
	files, err := e.cat.Manifest.LakeFiles(ctx, e.org.ID, "conversations", time.Now().AddDate(0, 0, -1), time.Now().AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	rows, err := e.lake.QueryContext(ctx, `SELECT conversation_id, transcript_mode, transcript_engine, transcript_model, call_duration_millis
		FROM read_parquet(`+lakedb.FileList(e.lake.Root(), paths)+`) ORDER BY conversation_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	modes := map[string]string{}
	for rows.Next() {
		var id, mode, engine, model string
		var ms int64
		if err := rows.Scan(&id, &mode, &engine, &model, &ms); err != nil {
			t.Fatal(err)
		}
		want := "en-us+en-us.lm.bin"
		if id == lineID {
			want = "telephone+en-us.lm.bin"
		}
		if engine != "pocketsphinx" || model != want || ms <= 0 {
			t.Fatalf("%s: %s %s %d, want the model %s", id, engine, model, ms, want)
		}
		modes[id] = mode
	}
	if modes[stereoID] != "stereo" || modes[monoID] != "mono" || modes[lineID] != "stereo" {
		t.Fatalf("modes %v", modes)
	}
}
