package results

import (
	"slices"
	"time"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// batchRows are the rows of a batch just committed and the paths of the
// files they were written to. A cluster made of those files alone holds
// exactly the batch's rows of its organization, day and id range, all of
// one run: each conversation's row is current and so are its results, so
// the cluster's figures are plain sums of the rows — the jobs keep them
// without reading back what they wrote.
type batchRows struct {
	batch   *lake.Batch
	written map[string]bool
}

// ownClusters are the clusters of files (of a day of dayFiles files)
// that hold one of the files written, and the figures they leave stale.
// Where they are all the day's files (a compaction, a day's first
// commit), that is every other figure kept for the day; else it is those
// of the former clusters that they joined (a re-run, a
// reclassification).
func (b *batchRows) ownClusters(files []catalog.LakeFile, dayFiles int) ([]cluster, catalog.Stale) {
	written := func(f catalog.LakeFile) bool { return b.written[f.Path] }
	var own []cluster
	ownFiles := 0
	for _, c := range clustersOf(files) {
		if slices.ContainsFunc(c.files, written) {
			own = append(own, c)
			ownFiles += len(c.files)
		}
	}
	if ownFiles == dayFiles {
		return own, catalog.Stale{AllBut: signaturesOf(own)}
	}
	var stale catalog.Stale
	for _, c := range own {
		for _, former := range overlapping(slices.DeleteFunc(slices.Clone(c.files), written)) {
			stale.Former = append(stale.Former, signature(former))
		}
	}
	return own, stale
}

// figures sums a cluster's figures from the batch's rows, or is nil when
// the cluster is not the batch's alone, or when the batch holds a
// conversation, or a conversation's result of a classifier, twice (which
// the lake's rule settles).
func (b *batchRows) figures(org string, day time.Time, c cluster) *dayFigures {
	if b == nil || b.batch == nil {
		return nil
	}
	lo, hi := c.files[0].MinID, c.files[0].MaxID
	for _, f := range c.files {
		if !b.written[f.Path] {
			return nil
		}
		lo, hi = min(lo, f.MinID), max(hi, f.MaxID)
	}
	mine := func(org2, id string, arrived time.Time) bool {
		return org2 == org && id >= lo && id <= hi && arrived.UTC().Truncate(24*time.Hour).Equal(day)
	}
	d := &dayFigures{results: map[string][]cellSums{}, index: map[cell]int{}}
	type current struct {
		cell, index int // index: the conversation's in the batch
		run         string
	}
	convs := make(map[string]current, len(b.batch.Conversations))
	for i := range b.batch.Conversations {
		cv := &b.batch.Conversations[i]
		if !mine(cv.OrgID, cv.ID, cv.ArrivedOn) {
			continue
		}
		if _, twice := convs[cv.ID]; twice {
			return nil
		}
		at := d.cellOf(cell{node: deref0(cv.HierarchyNodeID), agent: deref0(cv.AgentCode), media: cv.MediaType})
		d.conversations[at]++
		convs[cv.ID] = current{at, i, cv.RunID}
	}
	type key struct {
		classifier string
		cell       int
	}
	type result struct {
		conversation int
		classifier   string
	}
	sums := map[key]*resultSums{}
	seen := make(map[result]bool, len(b.batch.ClassifierResults))
	var order []key
	for i := range b.batch.ClassifierResults {
		r := &b.batch.ClassifierResults[i]
		cv, ok := convs[r.ConversationID]
		if !ok || !mine(r.OrgID, r.ConversationID, r.ArrivedOn) || r.RunID < cv.run {
			continue
		}
		if seen[result{cv.index, r.ClassifierID}] {
			return nil
		}
		seen[result{cv.index, r.ClassifierID}] = true
		k := key{r.ClassifierID, cv.cell}
		s := sums[k]
		if s == nil {
			s = &resultSums{}
			sums[k] = s
			order = append(order, k)
		}
		s.evaluated++
		if r.Result == "true" {
			s.hits++
		}
		if r.Score != nil {
			s.scored++
			s.scoreSum += *r.Score
		}
	}
	for _, k := range order {
		d.results[k.classifier] = append(d.results[k.classifier], cellSums{k.cell, *sums[k]})
	}
	d.index = nil
	return d
}

// deref0 is a nullable column as the lake's coalesce(column, ”) reads it.
func deref0(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
