package api

import (
	"runtime"
	"sync"
)

// A result page's items are laid out and written in parts at once: each
// part is independent, and a page of a thousand items took milliseconds on
// one core after its queries, when the request's own queries have left the
// cores. Parts add no work, so on a busy server they only wait their turn.

// partItems is the fewest items a part holds: fewer cost more to hand to
// a goroutine than they take.
const partItems = 200

// maxPageParts bounds a page's parts: each part holds a buffer of its own
// (pageBuffers), and beyond a few the hand-offs outweigh what is left.
const maxPageParts = 4

// pageParts is how many parts a page of n items is handled in: one a core,
// up to maxPageParts.
func pageParts(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), maxPageParts, n/partItems))
}

// inParts calls fn for each of parts ranges of n items (part p from lo
// to hi) at once, part 0 in this goroutine, and returns when all have
// returned. The ranges are in order and each has an item.
func inParts(n, parts int, fn func(p, lo, hi int)) {
	parts = max(1, min(parts, n))
	size := (n + parts - 1) / parts
	var wg sync.WaitGroup
	for p := 1; p*size < n; p++ {
		wg.Go(func() { fn(p, p*size, min((p+1)*size, n)) })
	}
	fn(0, 0, min(size, n))
	wg.Wait()
}
