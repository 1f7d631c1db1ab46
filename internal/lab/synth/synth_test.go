package synth

import (
	"context"
	"testing"
)

func TestStereo(t *testing.T) {
	call, err := Stereo(context.Background(), []Turn{{"Agent", "hello"}, {"Customer", "hi there"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(call.Turns) != 2 || call.Turns[1].StartMs < call.Turns[0].EndMs+gapMs-1 {
		t.Fatalf("turns %+v", call.Turns)
	}
	// The first turn is the agent's, on the right channel (1).
	frames := (len(call.WAV) - 44) / 4
	var left, right int64
	for i := 0; i < frames; i++ {
		ms := int64(i) * 1000 / rate
		l := int16(uint16(call.WAV[44+4*i]) | uint16(call.WAV[45+4*i])<<8)
		r := int16(uint16(call.WAV[46+4*i]) | uint16(call.WAV[47+4*i])<<8)
		if ms < call.Turns[0].EndMs {
			left += int64(abs(l))
			right += int64(abs(r))
		}
	}
	if left != 0 || right == 0 {
		t.Fatalf("agent turn energy: left %d right %d", left, right)
	}
}

func abs(v int16) int16 {
	if v < 0 {
		return -v
	}
	return v
}
