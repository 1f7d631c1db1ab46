// Package audio turns an audio file into 16 kHz mono signed 16-bit samples
// through ffmpeg (one channel at a time, streamed, so memory stays flat
// however long the call), and cuts the stream into utterances at silences
// for the recognizer.
package audio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Info is what ffprobe reports of a file's first audio stream.
type Info struct {
	Codec      string
	Channels   int
	SampleRate int
	Duration   time.Duration // 0 when the container does not say
}

// Probe reads a file's audio stream. A file that is not audio, or has no
// audio stream, gives an error that says so.
func Probe(ctx context.Context, path string) (Info, error) {
	cmd := exec.CommandContext(ctx, "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
		"stream=codec_name,channels,sample_rate,duration:format=duration", "-of", "json", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return Info{}, &ToolError{errors.New("ffprobe is not installed (install the ffmpeg package)")}
		}
		return Info{}, fmt.Errorf("the file is not readable audio: %s", firstLine(stderr.String(), err))
	}
	var probe struct {
		Streams []struct {
			Codec      string `json:"codec_name"`
			Channels   int    `json:"channels"`
			SampleRate string `json:"sample_rate"`
			Duration   string `json:"duration"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &probe); err != nil {
		return Info{}, &ToolError{fmt.Errorf("ffprobe output: %w", err)}
	}
	if len(probe.Streams) == 0 {
		return Info{}, errors.New("the file has no audio stream")
	}
	s := probe.Streams[0]
	if s.Channels < 1 {
		return Info{}, errors.New("the audio stream has no channels")
	}
	info := Info{Codec: s.Codec, Channels: s.Channels}
	info.SampleRate, _ = strconv.Atoi(s.SampleRate)
	for _, d := range []string{s.Duration, probe.Format.Duration} {
		if secs, err := strconv.ParseFloat(d, 64); err == nil && secs > 0 {
			info.Duration = time.Duration(secs * float64(time.Second))
			break
		}
	}
	return info, nil
}

// ffmpegContext is the "[mp3float @ 0x55b3…] " ffmpeg puts before a
// component's message: a memory address means nothing to a user.
var ffmpegContext = regexp.MustCompile(`^\[[^\]]* @ 0x[0-9a-f]+\] *`)

// firstLine is the first line ffmpeg printed, or the process error.
func firstLine(stderr string, err error) string {
	for _, line := range strings.Split(stderr, "\n") {
		if line = strings.TrimSpace(ffmpegContext.ReplaceAllString(strings.TrimSpace(line), "")); line != "" {
			return line
		}
	}
	if err == nil {
		return "unknown error"
	}
	return err.Error()
}
