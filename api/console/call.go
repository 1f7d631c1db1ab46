package console

import (
	"context"
	"errors"
	"strings"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/warehouse/catalog"
)

// callView is a conversation as a reviewer reads it, on its own page and
// beside an evaluation: the recording, the transcript by speaker and time
// with the evidence of its classifiers' results marked, the results, and
// a form to confirm or correct them.
type callView struct {
	ID, CSRF     string // the conversation's public id; the viewer's form token
	Audio        bool
	Turns        []turn
	NoTranscript string
	Results      []resultView
	// MayReview offers the review form only to whom the permission model
	// lets record one here (the change asks it again).
	MayReview bool
	// Back is the page a recorded review returns to ("" = the
	// conversation's); Problem why the last review was not recorded.
	Back, Problem string
}

type turn struct {
	At, Speaker, Class string
	StartMs            int64
	Parts              []part
}

// callOf reads a conversation the viewer may see as a reviewer reads it;
// back is the page a review returns to, and words searched for ("" for
// none) are marked wherever they are said. A transcript the lake cannot
// give is said so on the page, not a failure of it.
func (c *Console) callOf(ctx context.Context, v *viewer, it catalog.Interaction, back, words string) (callView, error) {
	call := callView{ID: it.Public(), CSRF: v.CSRF, Audio: hasAudio(it), Back: back,
		MayReview: v.actor.RequireOn(access.RecordReviews, it.MediaType, it.HierarchyNodeID) == nil}
	switch {
	case it.LakeRunID == nil && it.Status == catalog.StatusFailedToProcess:
		call.NoTranscript = "This conversation could not be processed."
		return call, nil
	case it.LakeRunID == nil:
		call.NoTranscript = "This conversation is still being processed; its transcript will follow."
		return call, nil
	}
	results, err := c.Reviews.Outcomes(ctx, v.actor, it)
	var refused *access.Refused
	if errors.As(err, &refused) {
		return call, err
	} else if err != nil {
		c.Log.Error("console: a conversation's results could not be read", "conversation", it.Public(), "err", err)
		call.Problem = "This conversation's classifier results could not be read; tell your administrator if it stays so."
	}
	evidence := map[int][]string{} // turn → the spans found in it
	for _, r := range results {
		call.Results = append(call.Results, viewOf(r))
		for _, s := range r.Evidence {
			evidence[int(s.Turn)] = append(evidence[int(s.Turn)], s.Text)
		}
	}
	segs, err := c.Transcripts.Transcript(ctx, v.OrgID, it)
	if err != nil {
		c.Log.Error("console: a transcript could not be read", "conversation", it.Public(), "err", err)
		call.NoTranscript = "This conversation's transcript could not be read; tell your administrator if it stays so."
		return call, nil
	}
	for i, s := range segs {
		call.Turns = append(call.Turns, turn{At: clock(s.StartMs), Speaker: s.Speaker, Class: strings.ToLower(s.Speaker),
			StartMs: s.StartMs, Parts: marked(s.Text, append(evidence[i], words))})
	}
	if len(call.Turns) == 0 {
		call.NoTranscript = "This conversation has no words."
	}
	return call, nil
}
