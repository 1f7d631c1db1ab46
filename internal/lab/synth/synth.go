// Package synth makes calls to test and demonstrate with: each turn of a
// dialogue spoken by flite (a voice per speaker) and laid on the
// speaker's channel of a 16 kHz stereo WAV, one turn after another.
package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Turn is one line of a dialogue.
type Turn struct {
	Speaker string // "Agent" or "Customer"
	Text    string
}

// Placed is where a turn landed in the call.
type Placed struct {
	Turn
	StartMs, EndMs int64
}

// Call is a synthesized stereo call.
type Call struct {
	WAV        []byte
	Turns      []Placed
	DurationMs int64
}

// Voices of flite's 16 kHz voices; the agent and the customer differ.
const (
	AgentVoice    = "slt"
	CustomerVoice = "rms"
)

const rate = 16000

// gap is the pause between turns.
const gapMs = 400

// Stereo speaks the turns and lays the agent's on agentChannel (0 or 1)
// and the customer's on the other.
func Stereo(ctx context.Context, turns []Turn, agentChannel int) (Call, error) {
	dir, err := os.MkdirTemp("", "earshot-synth-")
	if err != nil {
		return Call{}, err
	}
	defer os.RemoveAll(dir)
	var channels [2][]int16
	var placed []Placed
	pos := int64(gapMs * rate / 1000)
	for i, t := range turns {
		voice, ch := AgentVoice, agentChannel
		if t.Speaker != "Agent" {
			voice, ch = CustomerVoice, 1-agentChannel
		}
		pcm, err := Speak(ctx, filepath.Join(dir, fmt.Sprintf("%d.wav", i)), voice, t.Text)
		if err != nil {
			return Call{}, err
		}
		end := pos + int64(len(pcm))
		extend(&channels, end)
		copy(channels[ch][pos:], pcm)
		placed = append(placed, Placed{Turn: t, StartMs: pos * 1000 / rate, EndMs: end * 1000 / rate})
		pos = end + gapMs*rate/1000
	}
	extend(&channels, pos)
	return Call{WAV: WAV(channels[0], channels[1]), Turns: placed, DurationMs: pos * 1000 / rate}, nil
}

// extend pads both channels with silence to n samples.
func extend(channels *[2][]int16, n int64) {
	for c := range channels {
		if grow := n - int64(len(channels[c])); grow > 0 {
			channels[c] = append(channels[c], make([]int16, grow)...)
		}
	}
}

// Telephone re-encodes a call (a WAV) as a telephone line carries it:
// 8 kHz μ-law.
func Telephone(ctx context.Context, wav []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "earshot-telephone-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.wav")
	if err := os.WriteFile(in, wav, 0o600); err != nil {
		return nil, err
	}
	if msg, err := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", in, "-ar", "8000", "-c:a", "pcm_mulaw", out).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ffmpeg: %v: %s", err, msg)
	}
	return os.ReadFile(out)
}

// Speak runs flite and returns its 16 kHz samples.
func Speak(ctx context.Context, path, voice, text string) ([]int16, error) {
	cmd := exec.CommandContext(ctx, "flite", "-voice", voice, "-t", text, "-o", path)
	if out, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("flite is not installed (install the flite package)")
		}
		return nil, fmt.Errorf("flite: %v %s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return PCM(data)
}

// PCM reads the samples of a 16-bit mono WAV.
func PCM(wav []byte) ([]int16, error) {
	if len(wav) < 12 || string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" {
		return nil, errors.New("not a WAV file")
	}
	var channels, bits uint16
	var sampleRate uint32
	for p := 12; p+8 <= len(wav); {
		id, size := string(wav[p:p+4]), int(binary.LittleEndian.Uint32(wav[p+4:]))
		body := wav[p+8 : min(p+8+size, len(wav))]
		switch id {
		case "fmt ":
			if len(body) < 16 {
				return nil, errors.New("short fmt chunk")
			}
			channels, sampleRate, bits = binary.LittleEndian.Uint16(body[2:]), binary.LittleEndian.Uint32(body[4:]), binary.LittleEndian.Uint16(body[14:])
		case "data":
			if channels != 1 || bits != 16 || sampleRate != rate {
				return nil, fmt.Errorf("want 16 kHz 16-bit mono, got %d Hz %d-bit %d channels", sampleRate, bits, channels)
			}
			out := make([]int16, len(body)/2)
			for i := range out {
				out[i] = int16(binary.LittleEndian.Uint16(body[2*i:]))
			}
			return out, nil
		}
		p += 8 + size + size%2
	}
	return nil, errors.New("no data chunk")
}

// WAV writes 16 kHz 16-bit PCM: one channel, or two of equal length.
func WAV(channels ...[]int16) []byte {
	n := len(channels[0])
	nch := len(channels)
	var b bytes.Buffer
	dataLen := n * nch * 2
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+dataLen))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(nch), uint32(rate), uint32(rate * nch * 2), uint16(nch * 2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(dataLen))
	frame := make([]byte, 2*nch)
	for i := 0; i < n; i++ {
		for c := range channels {
			binary.LittleEndian.PutUint16(frame[2*c:], uint16(channels[c][i]))
		}
		b.Write(frame)
	}
	return b.Bytes()
}
