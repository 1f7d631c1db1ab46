package console

import "testing"

func TestStatusLabel(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]string{"NotStarted": "Not started", "InProgress": "In progress", "Completed": "Completed",
		"ReviewComplete": "Review complete", "ReadyToSample": "Processed", "Sampled": "Sampled for QA", "Processing": "Processing",
		"FailedToProcess": "Could not be processed", "": ""} {
		if got := statusLabel(status); got != want {
			t.Errorf("statusLabel(%q) = %q, want %q", status, got, want)
		}
	}
}
