package console

import (
	"reflect"
	"strings"
	"testing"
)

func TestMarked(t *testing.T) {
	for _, tc := range []struct {
		text  string
		spans []string
		want  []part
	}{
		{"My bill is wrong.", []string{"bill is wrong"}, []part{{"My ", false}, {"bill is wrong", true}, {".", false}}},
		{"My Bill is wrong.", []string{"bill"}, []part{{"My ", false}, {"Bill", true}, {" is wrong.", false}}},
		{"cancel my account, cancel now", []string{"cancel my account", "my account, cancel"}, []part{{"cancel my account", true}, {", cancel", true}, {" now", false}}},
		{"nothing here", []string{"absent", ""}, []part{{"nothing here", false}}},
		{"whole", []string{"whole"}, []part{{"whole", true}}},
		{"İstanbul bill", []string{"bill"}, []part{{"İstanbul ", false}, {"bill", true}}}, // lower-casing changes the length: searched as written
		{"", []string{"x"}, nil},
	} {
		if got := marked(tc.text, tc.spans); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("marked(%q, %q) = %+v, want %+v", tc.text, tc.spans, got, tc.want)
		}
	}
}

// An excerpt shows a long turn around the words found, cut at spaces.
func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 40) + "the parcel never came " + strings.Repeat("more ", 40)
	for _, tc := range []struct{ turn, word, want string }{
		{"Where is my parcel?", "PARCEL", "Where is my parcel?"},
		{long, "parcel", "…" + strings.TrimSpace(strings.Repeat("word ", 14)) + " the parcel never came " + strings.TrimSpace(strings.Repeat("more ", 12)) + "…"},
	} {
		if got := excerpt(tc.turn, tc.word); got != tc.want {
			t.Errorf("excerpt(%q, %q) =\n%q, want\n%q", tc.turn, tc.word, got, tc.want)
		}
	}
}
