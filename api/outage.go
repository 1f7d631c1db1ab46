package api

import (
	"net/http"
	"strconv"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Retry-After of the outages: a full disk needs the operator, a catalog
// that restarts comes back by itself.
const (
	storageFullRetrySeconds = 60
	catalogDownRetrySeconds = 5
)

// outage is the 503 of an error that is an outage (catalog.OutageOf),
// nil for any other.
func outage(err error) *problem.Problem {
	var p *problem.Problem
	var retry int
	switch catalog.OutageOf(err) {
	case catalog.StorageFull:
		p, retry = problem.New(http.StatusServiceUnavailable,
			"The server's storage is full, so this request could not be carried out. Retry later, or tell the operator."),
			storageFullRetrySeconds
	case catalog.CatalogUnreachable:
		p, retry = problem.New(http.StatusServiceUnavailable,
			"The server cannot reach its catalog database just now, so this request could not be carried out. Retry in a few seconds."),
			catalogDownRetrySeconds
	default:
		return nil
	}
	p.Header = http.Header{"Retry-After": {strconv.Itoa(retry)}}
	return p
}
