package pipeline

import (
	"slices"
	"testing"
	"time"

	"github.com/earshot/earshot/pipeline/audio"
	"github.com/earshot/earshot/warehouse/lake"
)

// Redacted words become silenced spans, widened, merged where they meet,
// in time order across speakers; other words are left alone.
func TestRedactedSpans(t *testing.T) {
	t.Parallel()
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	segs := []lake.Segment{
		{Words: []lake.Word{{Word: "my", StartMs: 0, EndMs: 100}, {Word: RedactedWord, StartMs: 100, EndMs: 400}, {Word: RedactedWord, StartMs: 500, EndMs: 800}}},
		{Words: []lake.Word{{Word: RedactedWord, StartMs: 50, EndMs: 90}, {Word: RedactedWord, StartMs: 3000, EndMs: 3200}, {Word: "thanks", StartMs: 3300, EndMs: 3600}}},
	}
	want := []audio.Span{{Start: 0, End: ms(950)}, {Start: ms(2850), End: ms(3350)}}
	if got := RedactedSpans(segs); !slices.Equal(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	if got := RedactedSpans([]lake.Segment{{Words: []lake.Word{{Word: "hello", StartMs: 0, EndMs: 10}}}}); got != nil {
		t.Fatalf("nothing redacted, spans %v", got)
	}
}
