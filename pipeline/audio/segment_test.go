package audio

import (
	"math"
	"testing"
)

// tone is ms of a 440 Hz tone at amplitude amp (0..1); amp 0 is silence.
func tone(ms int, amp float64) []int16 {
	out := make([]int16, ms*SampleRate/1000)
	for i := range out {
		out[i] = int16(amp * 32000 * math.Sin(2*math.Pi*440*float64(i)/SampleRate))
	}
	return out
}

func cat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func segment(t *testing.T, pcm []int16, feed int) ([]Utterance, bool) {
	t.Helper()
	var got []Utterance
	s := &Segmenter{Emit: func(u Utterance) error { got = append(got, u); return nil }}
	for len(pcm) > 0 { // odd chunk sizes: frames span writes
		n := min(feed, len(pcm))
		if err := s.Write(pcm[:n]); err != nil {
			t.Fatal(err)
		}
		pcm = pcm[n:]
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return got, s.Heard()
}

func TestSegmenter(t *testing.T) {
	type span struct{ startMs, lenMs int64 }
	tests := []struct {
		name  string
		pcm   []int16
		want  []span // utterance start and length, within 20 ms
		heard bool
	}{
		{"silence", tone(3000, 0), nil, false},
		{"quiet hiss below the floor", tone(3000, 0.0005), nil, false},
		{"one burst", cat(tone(1000, 0), tone(800, 0.3), tone(1000, 0)), []span{{850, 1100}}, true},
		{"two bursts, long pause", cat(tone(500, 0), tone(700, 0.3), tone(900, 0), tone(600, 0.3), tone(500, 0)),
			[]span{{350, 1000}, {1950, 900}}, true},
		{"short pause stays in one", cat(tone(500, 0), tone(700, 0.3), tone(200, 0), tone(600, 0.3), tone(500, 0)),
			[]span{{350, 1800}}, true},
		{"speech to the end", cat(tone(500, 0), tone(700, 0.3)), []span{{350, 850}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, heard := segment(t, tt.pcm, 997)
			if heard != tt.heard || len(got) != len(tt.want) {
				t.Fatalf("heard %v, %d utterances: %+v", heard, len(got), spans(got))
			}
			for i, w := range tt.want {
				g := got[i]
				lenMs := int64(len(g.PCM)) * 1000 / SampleRate
				if abs(g.StartMs-w.startMs) > 20 || abs(lenMs-w.lenMs) > 20 {
					t.Fatalf("utterance %d: %+v, want %+v", i, spans(got), tt.want)
				}
			}
		})
	}
}

// A minute without a pause is cut into pieces no longer than MaxLength,
// and no sample is lost or repeated.
func TestSegmenterMaxLength(t *testing.T) {
	pcm := tone(60_000, 0.3)
	got, _ := segment(t, pcm, 1600)
	var total int
	var next int64
	for _, u := range got {
		if int64(len(u.PCM))*1000/SampleRate > 20_000 || u.StartMs != next {
			t.Fatalf("utterances %+v", spans(got))
		}
		total += len(u.PCM)
		next = u.StartMs + int64(len(u.PCM))*1000/SampleRate
	}
	if len(got) < 3 || total != len(pcm) {
		t.Fatalf("%d utterances, %d of %d samples", len(got), total, len(pcm))
	}
}

func spans(us []Utterance) [][2]int64 {
	var out [][2]int64
	for _, u := range us {
		out = append(out, [2]int64{u.StartMs, int64(len(u.PCM)) * 1000 / SampleRate})
	}
	return out
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
