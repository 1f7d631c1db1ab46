// Package wer scores a transcript against its reference as NIST sclite
// does: the fewest substitutions, deletions and insertions that turn the
// reference's words into the hypothesis's, over the reference's word
// count. Both sides are compared in spoken form (pipeline/asr/spoken:
// lower case, no punctuation, numbers in words), as an engine writes what
// it heard.
package wer

// Word is a word and who said it.
type Word struct {
	Text    string
	Speaker string
}

// Score is the outcome of aligning a hypothesis with its reference.
type Score struct {
	Reference, Substitutions, Deletions, Insertions int
	// Attributed counts the aligned word pairs (correct or substituted),
	// SameSpeaker those whose hypothesis speaker is the reference's.
	Attributed, SameSpeaker int
}

// Errors is S + D + I.
func (s Score) Errors() int { return s.Substitutions + s.Deletions + s.Insertions }

// WER is the word error rate.
func (s Score) WER() float64 {
	if s.Reference == 0 {
		return 0
	}
	return float64(s.Errors()) / float64(s.Reference)
}

// SpeakerAccuracy is the share of aligned words attributed to the right
// speaker.
func (s Score) SpeakerAccuracy() float64 {
	if s.Attributed == 0 {
		return 0
	}
	return float64(s.SameSpeaker) / float64(s.Attributed)
}

// Add sums scores (a corpus score is the sum of its calls').
func (s Score) Add(o Score) Score {
	return Score{s.Reference + o.Reference, s.Substitutions + o.Substitutions, s.Deletions + o.Deletions,
		s.Insertions + o.Insertions, s.Attributed + o.Attributed, s.SameSpeaker + o.SameSpeaker}
}

// Align scores hyp against ref by Levenshtein alignment on the words'
// text (ties prefer a match, then a substitution).
func Align(ref, hyp []Word) Score {
	n, m := len(ref), len(hyp)
	cost := make([][]int, n+1)
	for i := range cost {
		cost[i] = make([]int, m+1)
		cost[i][0] = i
	}
	for j := 0; j <= m; j++ {
		cost[0][j] = j
	}
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			sub := cost[i-1][j-1]
			if ref[i-1].Text != hyp[j-1].Text {
				sub++
			}
			cost[i][j] = min(sub, cost[i-1][j]+1, cost[i][j-1]+1)
		}
	}
	s := Score{Reference: n}
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && cost[i][j] == cost[i-1][j-1] && ref[i-1].Text == hyp[j-1].Text,
			i > 0 && j > 0 && cost[i][j] == cost[i-1][j-1]+1:
			if ref[i-1].Text != hyp[j-1].Text {
				s.Substitutions++
			}
			s.Attributed++
			if ref[i-1].Speaker == hyp[j-1].Speaker {
				s.SameSpeaker++
			}
			i, j = i-1, j-1
		case i > 0 && cost[i][j] == cost[i-1][j]+1:
			s.Deletions++
			i--
		default:
			s.Insertions++
			j--
		}
	}
	return s
}
