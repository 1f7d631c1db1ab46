package jobs

import (
	"context"
	"fmt"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/warehouse/catalog"
)

// chatNames are chats' file names by organization: [organization, name].
type chatNames map[[2]string]bool

// namesOf are the file names of the results' chats.
func namesOf(results []pipeline.Result) chatNames {
	out := chatNames{}
	for _, r := range results {
		for _, ch := range r.Outcome.Children {
			out[[2]string{r.Outcome.Upload.OrgID, ch.FileName}] = true
		}
	}
	return out
}

// refuseTakenNames fails, before anything is written, each upload of a
// batch that would record a chat under a file name another interaction of
// its organization already has, or another upload of the batch claims, or
// a batch written before it whose commit may not have run yet (pending):
// the unique name would refuse the whole batch's commit, and every run
// would claim and fail the same batch again. The upload fails with its
// reason; the others go on.
func (j *Ingest) refuseTakenNames(ctx context.Context, results []pipeline.Result, pending chatNames) error {
	clash, err := j.takenNames(ctx, results, pending)
	if err != nil {
		return err
	}
	for i, name := range clash {
		up := results[i].Outcome.Upload
		j.Log.Warn("upload failed", "id", up.ID, "org", up.OrgID, "err", catalog.ErrFileNameTaken, "fileName", name)
		results[i] = pipeline.Result{Outcome: catalog.UploadOutcome{Upload: up, Status: catalog.StatusFailedToProcess,
			Failures: []string{nameTaken(name).Error()}}}
	}
	return nil
}

// nameTaken is the failure of an upload with a chat named name.
func nameTaken(name string) error {
	return fmt.Errorf("%w: %s", catalog.ErrFileNameTaken, name)
}

// takenNames finds, by result, a chat name it cannot have: one the
// catalog has, another result claims, or pending holds.
func (j *Ingest) takenNames(ctx context.Context, results []pipeline.Result, pending chatNames) (map[int]string, error) {
	names := map[string][]string{}  // organization → its chats' names in the batch
	except := map[string][]string{} // organization → its uploads in the batch
	owner := map[[2]string]int{}    // (organization, name) → the result that claims it
	clash := map[int]string{}       // result → a name it cannot have
	for i, r := range results {
		org := r.Outcome.Upload.OrgID
		except[org] = append(except[org], r.Outcome.Upload.ID)
		for _, ch := range r.Outcome.Children {
			key := [2]string{org, ch.FileName}
			if other, dup := owner[key]; dup && other != i || pending[key] {
				clash[i] = ch.FileName
				continue
			}
			owner[key] = i
			names[org] = append(names[org], ch.FileName)
		}
	}
	for org, list := range names {
		taken, err := j.Uploads.TakenFileNames(ctx, org, list, except[org])
		if err != nil {
			return nil, fmt.Errorf("check chat names: %w", err)
		}
		for _, name := range taken {
			clash[owner[[2]string{org, name}]] = name
		}
	}
	return clash, nil
}
