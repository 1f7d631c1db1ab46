package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/warehouse/catalog"
)

// transcriptBody is one conversation's transcript (CONTRACT §5).
type transcriptBody struct {
	ConversationID string           `json:"conversationId"`
	Status         string           `json:"status,omitempty"`
	Message        string           `json:"message,omitempty"`
	Transcriptions *[]transcription `json:"transcriptions"`
}

type transcription struct {
	LanguageCode  string        `json:"languageCode"`
	Transcription []string      `json:"transcription"`
	Segments      []segmentView `json:"segments,omitempty"` // ?detail=words [extension]
}

type segmentView struct {
	Speaker    string     `json:"speaker"`
	StartMs    int64      `json:"startMs"`
	EndMs      int64      `json:"endMs"`
	Text       string     `json:"text"`
	Confidence *float32   `json:"confidence"`
	Words      []wordView `json:"words"`
}

type wordView struct {
	Word       string  `json:"word"`
	StartMs    int64   `json:"startMs"`
	EndMs      int64   `json:"endMs"`
	Confidence float32 `json:"confidence"`
}

// transcriptError is why a conversation has no transcript to give.
type transcriptError struct {
	status int
	detail string
}

const transcriptNotFound = "No conversation with this id exists in your organization."

// transcripts builds the transcript of each id (in the caller's
// organization; ids as the API shows them, publicids.go), or says why
// there is none: one catalog query for the records and one lake query for
// all the segments. Both maps are keyed by the ids given.
func (s *conversationsAPI) transcripts(ctx context.Context, org string, ids []string, words bool) (map[string]*transcriptBody, map[string]*transcriptError) {
	bodies, errs := map[string]*transcriptBody{}, map[string]*transcriptError{}
	internal := func(what string, err error) {
		s.deps.Logger.Error("transcripts: "+what, "err", err)
		for _, id := range ids {
			errs[id] = &transcriptError{http.StatusInternalServerError, "The server could not read this transcript; report the traceId to the operator."}
		}
	}
	own, err := s.internalIDs(ctx, org, ids)
	if err != nil {
		internal("ids", err)
		return nil, errs
	}
	found, err := s.deps.Interactions.Interactions(ctx, org, catalog.InteractionFilter{IDs: own, ExactIDs: true, Limit: len(own), Scope: reads(ctx)})
	if err != nil {
		internal("interactions", err)
		return nil, errs
	}
	byID := map[string]catalog.Interaction{}
	var ready []catalog.Interaction
	for _, it := range found {
		key := it.Public()
		byID[key] = it
		switch it.Status {
		case catalog.StatusProcessing:
			bodies[key] = &transcriptBody{ConversationID: key, Status: "Processing",
				Message: "The conversation is still being processed; its transcript will be available when processing completes."}
		case catalog.StatusFailedToProcess:
			reason := "processing failed"
			if n := len(it.ProcessFailures); n > 0 {
				reason = it.ProcessFailures[n-1].Message
			}
			errs[key] = &transcriptError{http.StatusBadRequest, "The conversation could not be processed: " + reason}
		default:
			ready = append(ready, it)
		}
	}
	segments, err := s.deps.Results.Transcripts(ctx, org, ready)
	if err != nil {
		internal("lake", err)
		return nil, errs
	}
	for _, it := range ready {
		segs, ok := segments[it.ID]
		switch {
		case ok:
			bodies[it.Public()] = transcriptOf(it, segs, words)
		case it.MediaType == catalog.MediaChat:
			errs[it.Public()] = &transcriptError{http.StatusBadRequest,
				"This id is a chat archive, not a conversation: its conversations have their own ids (GET /Metadata?Id=" + it.Public() + ")."}
		default:
			errs[it.Public()] = &transcriptError{http.StatusNotFound, transcriptNotFound}
		}
	}
	for _, id := range ids {
		if _, ok := byID[id]; !ok {
			errs[id] = &transcriptError{http.StatusNotFound, transcriptNotFound}
		}
	}
	return bodies, errs
}

func transcriptOf(it catalog.Interaction, segs []catalog.TranscriptSegment, words bool) *transcriptBody {
	tr := transcription{LanguageCode: languageCode(it.LocaleID), Transcription: []string{}}
	for _, sg := range segs {
		tr.Transcription = append(tr.Transcription, fmt.Sprintf("%s %s: %s", clock(sg.StartMs), lineSpeaker(sg.Speaker), sg.Text))
		if words {
			v := segmentView{Speaker: sg.Speaker, StartMs: sg.StartMs, EndMs: sg.EndMs, Text: sg.Text, Confidence: sg.Confidence, Words: []wordView{}}
			for _, w := range sg.Words {
				v.Words = append(v.Words, wordView{Word: w.Word, StartMs: w.StartMs, EndMs: w.EndMs, Confidence: w.Confidence})
			}
			tr.Segments = append(tr.Segments, v)
		}
	}
	list := []transcription{tr}
	return &transcriptBody{ConversationID: it.Public(), Transcriptions: &list}
}

func languageCode(locale int) string {
	if locale == 2058 {
		return "es"
	}
	return "en"
}

// lineSpeaker is the speaker of a transcript line: Agent, Customer, or
// Speaker when the speaker is neither (a bot, the system, an unsplit mono call).
func lineSpeaker(s string) string {
	if s == "Agent" || s == "Customer" {
		return s
	}
	return "Speaker"
}

// clock formats milliseconds as HH:MM:SS.
func clock(ms int64) string {
	sec := ms / 1000
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

func wantsWords(c *gin.Context) bool {
	v, _ := query(c, "detail")
	return strings.EqualFold(v, "words")
}

// getTranscript is GET /Conversations/Transcriptions/{conversationId}.
func (s *conversationsAPI) getTranscript(c *gin.Context) error {
	id, err := uuid.Parse(c.Param("conversationId"))
	if err != nil {
		return problem.Field("conversationId", "must be a GUID.", "The conversationId in the path must be a GUID.")
	}
	bodies, errs := s.transcripts(c.Request.Context(), orgID(c), []string{id.String()}, wantsWords(c))
	if terr := errs[id.String()]; terr != nil {
		return problem.New(terr.status, terr.detail)
	}
	c.JSON(http.StatusOK, bodies[id.String()])
	return nil
}

// distinctIDs is ids without repeats (GUIDs compared in any casing), in
// their first order.
func distinctIDs(ids []string) []string {
	seen := map[string]bool{}
	out := ids[:0:0]
	for _, raw := range ids {
		key := raw
		if id, err := uuid.Parse(raw); err == nil {
			key = id.String()
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, raw)
		}
	}
	return out
}

// postTranscripts is POST /Conversations/Transcriptions: up to 100 at once.
func (s *conversationsAPI) postTranscripts(c *gin.Context) error {
	body, err := readBody(c)
	if err != nil {
		return err
	}
	ids := body.Strings("conversationIds")
	if ids != nil {
		*ids = distinctIDs(*ids) // duplicates are ignored, and not counted
	}
	if ids == nil && !body.Has("conversationIds") {
		body.Fail("conversationIds", "is required.")
	} else if ids != nil && (len(*ids) == 0 || len(*ids) > maxListValues) {
		body.Fail("conversationIds", "must list 1 to 100 ids.")
	}
	if p := body.Problem(); p != nil {
		return p
	}
	type itemError struct {
		ConversationID string `json:"conversationId"`
		StatusCode     int    `json:"statusCode"`
		Error          string `json:"error"`
	}
	out := struct {
		Transcriptions []transcriptBody `json:"transcriptions"`
		Errors         []itemError      `json:"errors"`
	}{Transcriptions: []transcriptBody{}, Errors: []itemError{}}
	var valid []string
	for _, raw := range *ids {
		if id, err := uuid.Parse(raw); err == nil {
			valid = append(valid, id.String())
		}
	}
	bodies, errs := s.transcripts(c.Request.Context(), orgID(c), valid, wantsWords(c))
	for _, raw := range *ids { // answers in the order asked
		id, err := uuid.Parse(raw)
		switch {
		case err != nil:
			out.Errors = append(out.Errors, itemError{raw, http.StatusBadRequest, "The conversationId must be a GUID."})
		case errs[id.String()] != nil:
			out.Errors = append(out.Errors, itemError{id.String(), errs[id.String()].status, errs[id.String()].detail})
		default:
			out.Transcriptions = append(out.Transcriptions, *bodies[id.String()])
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}
