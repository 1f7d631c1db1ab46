package catalog

import "time"

// stamp is a time to store: in UTC, as every catalog time is, so that
// the stored texts compare in time order, and to the microsecond, as the
// lake keeps it, so that the catalog and the lake agree on a boundary.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// stampPtr is stamp of an optional time.
func stampPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := stamp(*t)
	return &u
}
