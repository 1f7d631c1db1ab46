package lake

import (
	"slices"
	"sort"
)

// nodeCounts counts conversations by hierarchy node ("" for none), for
// the manifest: X-Total-Records of whole days adds these up.
func nodeCounts(convs []Conversation) map[string]int64 {
	out := map[string]int64{}
	for i := range convs {
		node := ""
		if convs[i].HierarchyNodeID != nil {
			node = *convs[i].HierarchyNodeID
		}
		out[node]++
	}
	return out
}

// completeClassifiers are the classifiers with a result for every one of
// convs (sorted by id, a run of a partition's conversations) among the
// partition's results (sorted by conversation, then classifier), in id
// order. Results of a batch belong to its conversations, so those in the
// chunk's id range are the chunk's.
func completeClassifiers(convs []Conversation, results []ClassifierResult) []string {
	lo := sort.Search(len(results), func(i int) bool { return results[i].ConversationID >= convs[0].ID })
	hi := sort.Search(len(results), func(i int) bool { return results[i].ConversationID > convs[len(convs)-1].ID })
	perClassifier := map[string]int{}
	for i := lo; i < hi; i++ {
		r := &results[i]
		if i > lo && r.ConversationID == results[i-1].ConversationID && r.ClassifierID == results[i-1].ClassifierID {
			continue // one conversation counts once
		}
		perClassifier[r.ClassifierID]++
	}
	out := []string{}
	for id, n := range perClassifier {
		if n == len(convs) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}
