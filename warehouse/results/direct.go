package results

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/internal/timing"
)

// Direct runs a page's lake queries straight on DuckDB, as the baseline
// the API is measured against: the page of conversations from the
// manifest-pruned conversations files, then the results of table
// (model_results or classifier_results) of the classifiers for them, the
// same statements the API runs, each row read. No catalog check, no JSON,
// no HTTP. It returns the rows read, and times its "lake" and "fetch"
// steps as a page does.
func (r *Reader) Direct(ctx context.Context, q PageQuery, table string, classifierIDs []string) (int, error) {
	files, err := r.conversationFiles(ctx, q)
	if err != nil || len(files) == 0 {
		return 0, err
	}
	stop := timing.Start(ctx, "lake")
	convs, _, err := r.lakeConversations(ctx, q, files, q.AfterID, q.Limit+1)
	stop()
	if err != nil || len(convs) == 0 {
		return 0, err
	}
	defer timing.Start(ctx, "fetch")()
	switch table {
	case "classifier_results":
		cands, err := r.ClassifierCandidates(ctx, q, convs, classifierIDs)
		if err != nil {
			return 0, err
		}
		return len(convs) + cands.Len(), nil
	case "model_results":
		cands, err := r.ModelCandidates(ctx, q, convs, classifierIDs)
		if err != nil {
			return 0, err
		}
		return len(convs) + cands.Len(), nil
	}
	return 0, fmt.Errorf("no results table %q", table)
}
