// Package window is the date-range policy of every door (CONTRACT §8): how
// far back results go, and how long a range one request may span. The API
// and the console take their limits, and the numbers in their messages,
// from here.
package window

import (
	"strconv"
	"time"
)

// Floor is the earliest startDate of /ModelResults: nothing before it is
// served, whatever the request asks.
var Floor = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)

const (
	// Unfiltered bounds /Conversations/Insights without a classifier or
	// hierarchy filter.
	Unfiltered = 7 * 24 * time.Hour
	// Filtered bounds Insights with a filter, and a classifier's dry run
	// and re-classification (through the API or the console).
	Filtered = 31 * 24 * time.Hour
)

// Days is a window in whole days, for messages.
func Days(w time.Duration) string { return strconv.Itoa(int(w / (24 * time.Hour))) }
