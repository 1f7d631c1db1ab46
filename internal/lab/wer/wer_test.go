package wer

import (
	"strings"
	"testing"
)

func ws(speaker, text string) []Word {
	var out []Word
	for _, w := range strings.Fields(text) {
		out = append(out, Word{w, speaker})
	}
	return out
}

func TestAlign(t *testing.T) {
	tests := []struct {
		name           string
		ref, hyp       []Word
		s, d, i        int
		attributed, ok int
	}{
		{"equal", ws("A", "a b c"), ws("A", "a b c"), 0, 0, 0, 3, 3},
		{"substitution", ws("A", "a b c"), ws("A", "a x c"), 1, 0, 0, 3, 3},
		{"deletion", ws("A", "a b c"), ws("A", "a c"), 0, 1, 0, 2, 2},
		{"insertion", ws("A", "a b"), ws("A", "a x b"), 0, 0, 1, 2, 2},
		{"empty hypothesis", ws("A", "a b"), nil, 0, 2, 0, 0, 0},
		{"empty reference", nil, ws("A", "a"), 0, 0, 1, 0, 0},
		{"wrong speaker", append(ws("A", "a b"), ws("C", "c d")...), append(ws("A", "a b c"), ws("C", "d")...), 0, 0, 0, 4, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Align(tt.ref, tt.hyp)
			if s.Substitutions != tt.s || s.Deletions != tt.d || s.Insertions != tt.i || s.Attributed != tt.attributed || s.SameSpeaker != tt.ok {
				t.Fatalf("%+v", s)
			}
		})
	}
	if w := Align(ws("A", "a b c d"), ws("A", "a x c")).WER(); w != 0.5 {
		t.Fatalf("WER %v", w)
	}
}
