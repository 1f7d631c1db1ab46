package api

import (
	"strconv"
	"time"
)

// The date ranges a request may span: one policy for the contract's
// operations (CONTRACT §8) and for the extensions that read as much.
const (
	// unfilteredWindow: /Conversations/Insights without a classifier or
	// hierarchy filter.
	unfilteredWindow = 7 * 24 * time.Hour
	// filteredWindow: Insights with a filter, and a classifier's dry run
	// and reclassification.
	filteredWindow = 31 * 24 * time.Hour
)

// days is a window in whole days, for messages.
func days(window time.Duration) string { return strconv.Itoa(int(window / (24 * time.Hour))) }
