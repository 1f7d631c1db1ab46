package core

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// birthContext is the search birthContexts stands for.
var birthContext = regexp.MustCompile(`(?i)\b` + birthWords)

var birthTexts = []string{
	"Could you confirm your name and date of birth?",
	"Jane Doe, born March 3, 1971.",
	"DOB 03/06/1995 and D.O.B. again, d.ob, do.b, dob: 1 Jan",
	"my birthday is on the sixth; Birth Date: 1990-01-02; BIRTHDATE 12/12/12",
	"reborn, stubborn, adobe, dobby, airborne, unborn_born, x_dob",
	"date  of   birth was in the 1980s, the born is it's its",
	"Born\tborn\nborn-born,born.born",
	"no such words here at all",
	"",
	"b", "d", "B.", "do", "bor", "dob",
	"éborn ∂ob ßdob born\u00a0on",
}

// FuzzBirthContexts holds birthContexts to the search it stands for, on
// any text.
func FuzzBirthContexts(f *testing.F) {
	for _, s := range birthTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := birthContexts(text), birthContext.FindAllStringIndex(text, -1); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%q: %v, the search %v", text, got, want)
		}
	})
}

// TestMentionsBirth glances at the words of a date of birth in any case,
// and at nothing else.
func TestMentionsBirth(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"date of birth", true}, {"BIRTH", true}, {"bIrThDaY", true}, {"Born in", true}, {"stubborn", true},
		{"DOB:", true}, {"d.o.b.", true}, {"D.O.B", true}, {"dObby", true},
		{"bird", false}, {"bor", false}, {"do b", false}, {"d.o", false}, {"", false}, {"date of arrival", false},
	} {
		if got := mentionsBirth(tt.text); got != tt.want {
			t.Errorf("mentionsBirth(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// FuzzPIIGlances holds the glances at a turn (mentionsBirth, saysDot) to
// the plain searches they stand for, on any text.
func FuzzPIIGlances(f *testing.F) {
	for _, s := range append(slices.Clone(birthTexts), " dot ", "a Dot com", "dot dot ", " dOt ", "not  dot", "\u00a0dot ", " d ot ") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		birth := false
		for i := range len(text) {
			for _, w := range []string{"birth", "born", "dob", "d.o.b"} {
				birth = birth || hasPrefixFold(text[i:], w)
			}
		}
		if got := mentionsBirth(text); got != birth {
			t.Errorf("mentionsBirth(%q) = %v, the search %v", text, got, birth)
		}
		dot := strings.Contains(text, " dot ") || strings.Contains(text, " Dot ")
		if got := saysDot(text); got != dot {
			t.Errorf("saysDot(%q) = %v, the search %v", text, got, dot)
		}
	})
}
