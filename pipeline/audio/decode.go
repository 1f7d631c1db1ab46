package audio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// SampleRate is the rate Decode delivers.
const SampleRate = 16000

// chunkSamples is how many samples Decode hands over at a time (100 ms).
const chunkSamples = SampleRate / 10

// Decode streams one channel of a file (channel < 0: all channels mixed
// to mono) as 16 kHz signed 16-bit samples to fn, a chunk at a time (the
// slice is reused: copy what you keep). It reads from a file, not a pipe:
// MP4 and M4A keep their index at the end. It returns the duration
// decoded; damage ffmpeg reports fails the decode with its message.
func Decode(ctx context.Context, path string, channel int, fn func(chunk []int16) error) (time.Duration, error) {
	args := []string{"-nostdin", "-v", "error", "-i", path, "-vn", "-sn", "-dn"}
	if channel >= 0 {
		args = append(args, "-af", fmt.Sprintf("pan=mono|c0=c%d", channel))
	}
	args = append(args, "-ac", "1", "-ar", fmt.Sprint(SampleRate), "-f", "s16le", "-acodec", "pcm_s16le", "pipe:1")
	cmd := exec.CommandContext(ctx, "ffmpeg", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, &ToolError{err}
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return 0, &ToolError{errors.New("ffmpeg is not installed (install the ffmpeg package)")}
		}
		return 0, &ToolError{err}
	}
	var samples int64
	r := bufio.NewReaderSize(stdout, 64<<10)
	buf := make([]byte, 2*chunkSamples)
	chunk := make([]int16, chunkSamples)
	var fnErr error
	for fnErr == nil {
		n, err := io.ReadFull(r, buf)
		n -= n % 2
		for i := 0; i < n/2; i++ {
			chunk[i] = int16(binary.LittleEndian.Uint16(buf[2*i:]))
		}
		if n > 0 {
			samples += int64(n / 2)
			fnErr = fn(chunk[:n/2])
		}
		if err != nil {
			break
		}
	}
	if fnErr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fnErr
	}
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, fmt.Errorf("the audio cannot be decoded: %s", firstLine(stderr.String(), err))
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return 0, fmt.Errorf("the audio is damaged: %s", firstLine(msg, nil))
	}
	return time.Duration(samples) * time.Second / SampleRate, nil
}

// DecodeAll is Decode into one slice: for short recordings, which are
// kept whole.
func DecodeAll(ctx context.Context, path string, channel int) ([]int16, error) {
	var pcm []int16
	_, err := Decode(ctx, path, channel, func(chunk []int16) error {
		pcm = append(pcm, chunk...)
		return nil
	})
	return pcm, err
}
