package audio

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/earshot/earshot/internal/lab/synth"
)

// speak makes a file with flite and converts it with ffmpeg (args between
// input and output).
func speak(t *testing.T, dir, text, name string, ffargs ...string) string {
	t.Helper()
	wav := filepath.Join(dir, "flite-"+name+".wav")
	if _, err := synth.Speak(context.Background(), wav, synth.AgentVoice, text); err != nil {
		t.Fatal(err)
	}
	return convert(t, wav, filepath.Join(dir, name), ffargs...)
}

func convert(t *testing.T, in, out string, ffargs ...string) string {
	t.Helper()
	args := append(append([]string{"-nostdin", "-v", "error", "-y", "-i", in}, ffargs...), out)
	if msg, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg %v: %v %s", args, err, msg)
	}
	return out
}

func decodeAll(t *testing.T, path string, channel int) ([]int16, time.Duration, error) {
	var pcm []int16
	d, err := Decode(context.Background(), path, channel, func(c []int16) error { pcm = append(pcm, c...); return nil })
	return pcm, d, err
}

// The same speech in all six accepted formats decodes to about the same
// length of 16 kHz audio, with speech in it.
func TestDecodeSixFormats(t *testing.T) {
	dir := t.TempDir()
	text := "thank you for calling, how can I help you today"
	formats := map[string][]string{
		"a.wav":  nil,
		"a.mp3":  {"-c:a", "libmp3lame", "-b:a", "32k"},
		"a.mp4":  {"-c:a", "aac", "-b:a", "32k"},
		"a.m4a":  {"-c:a", "aac", "-b:a", "32k"},
		"a.ogg":  {"-c:a", "libvorbis", "-q:a", "2"},
		"a.opus": {"-c:a", "libopus", "-b:a", "24k"},
	}
	var want time.Duration
	for name, args := range formats {
		path := speak(t, dir, text, name, args...)
		info, err := Probe(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: probe: %v", name, err)
		}
		pcm, d, err := decodeAll(t, path, -1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "a.wav" {
			want = d
		}
		if info.Channels != 1 || d < 2*time.Second || int64(len(pcm)) != int64(d/time.Millisecond)*SampleRate/1000 {
			t.Fatalf("%s: %+v, %v decoded, %d samples", name, info, d, len(pcm))
		}
		var s Segmenter
		s.Emit = func(Utterance) error { return nil }
		s.Write(pcm)
		s.Close()
		if !s.Heard() {
			t.Fatalf("%s: no speech found", name)
		}
	}
	for name := range formats {
		_, d, _ := decodeAll(t, filepath.Join(dir, name), -1)
		if diff := d - want; diff < -100*time.Millisecond || diff > 150*time.Millisecond {
			t.Errorf("%s decodes to %v, the wav to %v", name, d, want)
		}
	}
}

// Each channel of a stereo file decodes on its own.
func TestDecodeStereoChannels(t *testing.T) {
	dir := t.TempDir()
	left := speak(t, dir, "hello there", "left.wav")
	stereo := filepath.Join(dir, "stereo.wav")
	cmd := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", left, "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono",
		"-filter_complex", "[0:a][1:a]amerge=inputs=2[a]", "-map", "[a]", "-shortest", stereo)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	info, err := Probe(context.Background(), stereo)
	if err != nil || info.Channels != 2 {
		t.Fatalf("probe %+v %v", info, err)
	}
	heard := func(ch int) bool {
		pcm, _, err := decodeAll(t, stereo, ch)
		if err != nil {
			t.Fatal(err)
		}
		s := Segmenter{Emit: func(Utterance) error { return nil }}
		s.Write(pcm)
		s.Close()
		return s.Heard()
	}
	if !heard(0) || heard(1) {
		t.Fatalf("left heard %v, right heard %v", heard(0), heard(1))
	}
}

// Bad files fail with a reason a person can act on.
func TestDecodeBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := speak(t, dir, "this call may be recorded for quality purposes", "good.mp3", "-c:a", "libmp3lame")
	data, _ := os.ReadFile(good)
	truncated := filepath.Join(dir, "truncated.mp3")
	os.WriteFile(truncated, data[:len(data)/3], 0o600)
	headerOnly := filepath.Join(dir, "header.m4a")
	m4a := speak(t, dir, "hello", "whole.m4a", "-c:a", "aac")
	m4aData, _ := os.ReadFile(m4a)
	os.WriteFile(headerOnly, m4aData[:len(m4aData)/2], 0o600)
	text := filepath.Join(dir, "notes.wav")
	os.WriteFile(text, []byte("Customer called about a refund; agent escalated.\n"), 0o600)
	empty := filepath.Join(dir, "empty.wav")
	os.WriteFile(empty, nil, 0o600)
	video := filepath.Join(dir, "video.mp4")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=black:s=32x32:d=1", video).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, tt := range []struct{ path, want string }{
		{text, "not readable audio"},
		{empty, "not readable audio"},
		{video, "no audio stream"},
		{headerOnly, "not readable audio"},
	} {
		_, err := Probe(context.Background(), tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", filepath.Base(tt.path), err, tt.want)
		}
	}
	// A truncated MP3 still probes; what is there decodes.
	if _, err := Probe(context.Background(), truncated); err != nil {
		t.Fatalf("truncated probe: %v", err)
	}
	if _, _, err := decodeAll(t, truncated, -1); err == nil || !strings.HasPrefix(err.Error(), "the audio is damaged: ") ||
		strings.Contains(err.Error(), "0x") {
		t.Fatalf("truncated mp3: %v", err)
	}
}
