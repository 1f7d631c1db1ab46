package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/audio"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// LocaleSpanish is the LocaleId of Spanish uploads.
const LocaleSpanish = 2058

// Calls processes audio uploads: decoded by ffmpeg, one channel at a time,
// cut into utterances at silences and transcribed by the speech engine.
// A stereo call is transcribed channel by channel (the agent's channel is
// an organization setting) and its words merged by time into turns; a mono
// call has one speaker, "Speaker", and turns split at pauses.
type Calls struct {
	Recognizers *Recognizers
	Settings    AudioSettings
	// Spanish is the model for LocaleId 2058 uploads; nil when none is
	// configured (they fail with a reason that says so).
	Spanish *asr.Model
	// Telephone is the acoustic model for calls recorded at telephone
	// rates (TelephoneRate or less), adapted to such audio (pipeline/asr/adapt);
	// "" decodes them with the engine's default model like any other.
	Telephone string
}

// TelephoneRate is the highest sample rate of telephone audio: a call
// recorded at it or below carries nothing above 4 kHz.
const TelephoneRate = 8000

// AudioSettings reads an organization's speech settings.
type AudioSettings interface {
	AudioSettings(ctx context.Context, orgID string) (catalog.AudioSettings, error)
}

// Accepts audio uploads.
func (Calls) Accepts(up catalog.Interaction) bool { return up.MediaType == catalog.MediaAudio }

// monoTurnPause splits a one-speaker transcript into turns.
const monoTurnPause = 1000 * time.Millisecond

// Process transcribes a call.
func (p Calls) Process(ctx context.Context, up catalog.Interaction, runID string, open Opener, _ Parts) (Result, error) {
	if up.StagedKey == nil {
		return Result{}, ourFault(errors.New("the upload has no staged file"))
	}
	settings, err := p.Settings.AudioSettings(ctx, up.OrgID)
	if err != nil {
		return Result{}, ourFault(fmt.Errorf("the organization's speech settings cannot be read: %w", err))
	}
	file, cleanup, err := spool(ctx, open, *up.StagedKey)
	if err != nil {
		return Result{}, err
	}
	defer cleanup()
	info, err := audio.Probe(ctx, file)
	if err != nil {
		return Result{}, err
	}
	model, err := p.model(up, settings, info)
	if err != nil {
		return Result{}, err
	}
	rec, err := p.Recognizers.Get(model)
	if err != nil {
		return Result{}, ourFault(fmt.Errorf("speech recognition cannot start: %w", err))
	}
	defer p.Recognizers.Put(model, rec)

	mode := "mono"
	channels := []channel{{index: -1, speaker: "Speaker"}}
	if info.Channels >= 2 {
		mode = "stereo"
		agent := settings.AgentChannel
		channels = []channel{{index: agent, speaker: "Agent"}, {index: 1 - agent, speaker: "Customer"}}
	}
	var words []spokenWord
	var duration time.Duration
	heard := false
	for _, ch := range channels {
		got, d, chHeard, err := transcribeChannel(ctx, file, ch, rec)
		if err != nil {
			return Result{}, err
		}
		words = append(words, got...)
		duration, heard = max(duration, d), heard || chHeard
	}
	if !heard {
		return Result{}, errors.New("the audio is silent: no speech was found")
	}
	if len(words) == 0 {
		return Result{}, errors.New("no speech was recognized in the audio")
	}
	engine, modelName := rec.Name()
	ms := duration.Milliseconds()
	res := Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusReadyToSample, Conversation: true, CallDurationMillis: &ms}}
	res.Batch = callRows(up, runID, mode, engine, modelName, ms, turns(words, mode))
	return res, nil
}

// model picks the recognizer model for an upload: Spanish for LocaleId
// 2058, the organization's own language model when it set one, the
// telephone acoustic model for audio at telephone rates when there is one.
func (p Calls) model(up catalog.Interaction, settings catalog.AudioSettings, info audio.Info) (asr.Model, error) {
	if up.LocaleID == LocaleSpanish {
		if p.Spanish == nil {
			return asr.Model{}, errors.New("no Spanish model configured: LocaleId 2058 calls need the operator's --asr-spanish-model")
		}
		return *p.Spanish, nil
	}
	m := asr.Model{LanguageModel: settings.LanguageModel, Dictionary: settings.Dictionary}
	if info.SampleRate > 0 && info.SampleRate <= TelephoneRate {
		m.Dir = p.Telephone
	}
	return m, nil
}

// spool copies the staged file to a local temporary file with the same
// extension: ffmpeg needs to seek in MP4 and M4A.
func spool(ctx context.Context, open Opener, key string) (string, func(), error) {
	rc, err := open(ctx, key)
	if err != nil {
		return "", nil, ourFault(fmt.Errorf("the staged file cannot be read: %w", err))
	}
	defer rc.Close()
	f, err := os.CreateTemp("", "earshot-call-*"+strings.ToLower(path.Ext(key)))
	if err != nil {
		return "", nil, ourFault(err)
	}
	cleanup := func() { os.Remove(f.Name()) }
	if _, err := io.Copy(f, rc); err != nil {
		f.Close()
		cleanup()
		return "", nil, ourFault(fmt.Errorf("the staged file cannot be read: %w", err))
	}
	if err := f.Close(); err != nil {
		cleanup()
		return "", nil, ourFault(err)
	}
	return f.Name(), cleanup, nil
}

type channel struct {
	index   int // -1: all channels mixed
	speaker string
}

type spokenWord struct {
	asr.Word
	speaker string
}

// transcribeChannel decodes one channel and transcribes it utterance by
// utterance as it streams.
func transcribeChannel(ctx context.Context, file string, ch channel, rec asr.Recognizer) ([]spokenWord, time.Duration, bool, error) {
	var words []spokenWord
	seg := &audio.Segmenter{Emit: func(u audio.Utterance) error {
		got, err := rec.Recognize(u.PCM)
		if err != nil {
			return ourFault(fmt.Errorf("speech recognition: %w", err))
		}
		for _, w := range got {
			w.StartMs += u.StartMs
			w.EndMs += u.StartMs
			words = append(words, spokenWord{w, ch.speaker})
		}
		return nil
	}}
	d, err := audio.Decode(ctx, file, ch.index, seg.Write)
	if err == nil {
		err = seg.Close()
	}
	if err != nil {
		return nil, 0, false, err
	}
	return words, d, seg.Heard(), nil
}

// turn is a speaker's run of words.
type turn struct {
	speaker string
	words   []asr.Word
}

// turns merges the channels' words by time: a turn ends where the speaker
// changes, or (one speaker) at a pause.
func turns(words []spokenWord, mode string) []turn {
	sort.SliceStable(words, func(i, j int) bool { return words[i].StartMs < words[j].StartMs })
	var out []turn
	for i, w := range words {
		newTurn := i == 0 || w.speaker != words[i-1].speaker ||
			(mode == "mono" && w.StartMs-words[i-1].EndMs >= monoTurnPause.Milliseconds())
		if newTurn {
			out = append(out, turn{speaker: w.speaker})
		}
		out[len(out)-1].words = append(out[len(out)-1].words, w.Word)
	}
	return out
}

// callRows turns a transcribed call into its lake rows.
func callRows(up catalog.Interaction, runID, mode, engine, model string, durationMs int64, ts []turn) lake.Batch {
	row := conversationRow(up, runID, mode)
	row.CallDurationMillis, row.TranscriptEngine, row.TranscriptModel = &durationMs, &engine, &model
	b := lake.Batch{Conversations: []lake.Conversation{row}, Segments: make([]lake.Segment, 0, len(ts))}
	for i, t := range ts {
		text := make([]string, len(t.words))
		words := make([]lake.Word, len(t.words))
		var conf float32
		for j, w := range t.words {
			text[j] = w.Text
			words[j] = lake.Word{Word: w.Text, StartMs: w.StartMs, EndMs: w.EndMs, Confidence: w.Confidence}
			conf += w.Confidence
		}
		conf /= float32(len(t.words))
		b.Segments = append(b.Segments, lake.Segment{
			ConversationID: up.ID, RunID: runID, OrgID: up.OrgID, ArrivedOn: up.ArrivedOn, Index: int32(i), Speaker: t.speaker,
			StartMs: t.words[0].StartMs, EndMs: t.words[len(t.words)-1].EndMs, Text: strings.Join(text, " "), Confidence: &conf, Words: words,
		})
	}
	return b
}

// Recognizers keeps loaded recognizers for reuse, per model: loading one
// takes about a second, so each worker's stays loaded between calls. The
// ingest job's worker bound is what bounds how many exist.
type Recognizers struct {
	Engine asr.Engine
	mu     sync.Mutex
	idle   map[asr.Model][]asr.Recognizer
}

// Get returns an idle recognizer for the model, or loads one.
func (r *Recognizers) Get(m asr.Model) (asr.Recognizer, error) {
	r.mu.Lock()
	if list := r.idle[m]; len(list) > 0 {
		rec := list[len(list)-1]
		r.idle[m] = list[:len(list)-1]
		r.mu.Unlock()
		return rec, nil
	}
	r.mu.Unlock()
	if r.Engine == nil {
		return nil, asr.ErrNotConfigured
	}
	return r.Engine.New(m)
}

// Preload loads n recognizers for the model ahead of work (a benchmark's
// clock, a worker's first call).
func (r *Recognizers) Preload(m asr.Model, n int) error {
	for range n {
		rec, err := r.Engine.New(m)
		if err != nil {
			return err
		}
		r.Put(m, rec)
	}
	return nil
}

// Put returns a recognizer for reuse.
func (r *Recognizers) Put(m asr.Model, rec asr.Recognizer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.idle == nil {
		r.idle = map[asr.Model][]asr.Recognizer{}
	}
	r.idle[m] = append(r.idle[m], rec)
}

// Close frees every idle recognizer.
func (r *Recognizers) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, list := range r.idle {
		for _, rec := range list {
			rec.Close()
		}
	}
	r.idle = nil
}
