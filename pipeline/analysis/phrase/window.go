package phrase

import (
	"math"

	"github.com/earshot/earshot/pipeline/analysis"
)

// window limits where a rule looks. One kind at most:
//
//	firstMs / lastMs        the first or last N milliseconds of the conversation
//	startMs + endMs         from startMs (inclusive) to endMs (exclusive)
//	firstPercent / lastPercent
//	                        the first or last share of the conversation: of its
//	                        time when timed, else of its words
//	firstTurns / lastTurns  the first or last N turns
//
// Time windows on a chat without timestamps cover it all (every turn is at
// 0 ms); use percent or turn windows there.
type window struct {
	kind     string
	from, to float64
}

const (
	noWindow   = ""
	byTime     = "time"    // from, to: ms from the conversation start
	fromEnd    = "fromEnd" // from: ms before the end
	byShare    = "share"   // from, to: 0..1 of the conversation
	firstTurns = "firstTurns"
	lastTurns  = "lastTurns"
)

func compileWindow(w *analysis.Object) (window, error) {
	keys := []string{"firstMs", "lastMs", "startMs", "endMs", "firstPercent", "lastPercent", "firstTurns", "lastTurns"}
	if err := w.Allow(keys...); err != nil {
		return window{}, err
	}
	var given []string
	for _, k := range keys {
		if w.Has(k) {
			given = append(given, k)
		}
	}
	const maxMs = 24 * 3600 * 1000
	if w.Has("startMs") || w.Has("endMs") {
		switch {
		case !w.Has("startMs"):
			return window{}, analysis.Invalid("needs startMs too", w.Path, "endMs")
		case !w.Has("endMs"):
			return window{}, analysis.Invalid("needs endMs too", w.Path, "startMs")
		case len(given) > 2:
			return window{}, analysis.Invalid("gives more than one window; a rule has one", w.Path)
		}
		start, err := w.Int("startMs", 0, maxMs)
		if err != nil {
			return window{}, err
		}
		end, err := w.Int("endMs", 0, maxMs)
		if err != nil {
			return window{}, err
		}
		if *end <= *start {
			return window{}, analysis.Invalid("must be after startMs", w.Path, "endMs")
		}
		return window{kind: byTime, from: float64(*start), to: float64(*end)}, nil
	}
	switch {
	case len(given) == 0:
		return window{}, analysis.Invalid("needs one of firstMs, lastMs, startMs and endMs, firstPercent, lastPercent, firstTurns, lastTurns", w.Path)
	case len(given) > 1:
		return window{}, analysis.Invalid("gives more than one window ("+given[0]+" and "+given[1]+"); a rule has one", w.Path)
	}
	switch given[0] {
	case "firstMs", "lastMs":
		ms, err := w.Int(given[0], 1, maxMs)
		if err != nil {
			return window{}, err
		}
		if given[0] == "firstMs" {
			return window{kind: byTime, from: 0, to: float64(*ms)}, nil
		}
		return window{kind: fromEnd, from: float64(*ms)}, nil
	case "firstPercent", "lastPercent":
		p, err := w.Number(given[0], 0.001, 100)
		if err != nil {
			return window{}, err
		}
		if given[0] == "firstPercent" {
			return window{kind: byShare, from: 0, to: *p / 100}, nil
		}
		// The end itself belongs to the last share.
		return window{kind: byShare, from: 1 - *p/100, to: math.Inf(1)}, nil
	default: // firstTurns, lastTurns
		n, err := w.Int(given[0], 1, 100000)
		if err != nil {
			return window{}, err
		}
		return window{kind: given[0], from: float64(*n)}, nil
	}
}
