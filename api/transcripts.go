package api

import (
	"context"
	"errors"
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

// transcript builds a conversation's transcript body, or says why not.
func (s *Server) transcript(ctx context.Context, org, id string, words bool) (*transcriptBody, *transcriptError) {
	it, err := s.deps.Catalog.Interaction(ctx, org, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, &transcriptError{http.StatusNotFound, transcriptNotFound}
	}
	if err != nil {
		s.deps.Logger.Error("transcript: interaction", "err", err)
		return nil, &transcriptError{http.StatusInternalServerError, "The server could not read this conversation; report the traceId to the operator."}
	}
	switch it.Status {
	case catalog.StatusProcessing:
		return &transcriptBody{ConversationID: id, Status: "Processing",
			Message: "The conversation is still being processed; its transcript will be available when processing completes."}, nil
	case catalog.StatusFailedToProcess:
		reason := "processing failed"
		if n := len(it.ProcessFailures); n > 0 {
			reason = it.ProcessFailures[n-1].Message
		}
		return nil, &transcriptError{http.StatusBadRequest, "The conversation could not be processed: " + reason}
	}
	segs, err := s.deps.Catalog.Transcript(ctx, org, it)
	if errors.Is(err, catalog.ErrNotInLake) {
		if it.MediaType == catalog.MediaChat {
			return nil, &transcriptError{http.StatusBadRequest,
				"This id is a chat archive, not a conversation: its conversations have their own ids (GET /Metadata?Id=" + id + ")."}
		}
		return nil, &transcriptError{http.StatusNotFound, transcriptNotFound}
	}
	if err != nil {
		s.deps.Logger.Error("transcript: lake", "err", err, "id", id)
		return nil, &transcriptError{http.StatusInternalServerError, "The server could not read this transcript; report the traceId to the operator."}
	}
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
	return &transcriptBody{ConversationID: id, Transcriptions: &list}, nil
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
func (s *Server) getTranscript(c *gin.Context) {
	id, err := uuid.Parse(c.Param("conversationId"))
	if err != nil {
		problem.Write(c, problem.Field("conversationId", "must be a GUID.", "The conversationId in the path must be a GUID."))
		return
	}
	body, terr := s.transcript(c.Request.Context(), orgID(c), id.String(), wantsWords(c))
	if terr != nil {
		problem.Write(c, problem.New(terr.status, terr.detail))
		return
	}
	c.JSON(http.StatusOK, body)
}

// postTranscripts is POST /Conversations/Transcriptions: up to 100 at once.
func (s *Server) postTranscripts(c *gin.Context) {
	body, ok := readBody(c)
	if !ok {
		return
	}
	ids := body.Strings("conversationIds")
	if ids == nil && !body.Has("conversationIds") {
		body.Fail("conversationIds", "is required.")
	} else if ids != nil && (len(*ids) == 0 || len(*ids) > maxListValues) {
		body.Fail("conversationIds", "must list 1 to 100 ids.")
	}
	if p := body.Problem(); p != nil {
		problem.Write(c, p)
		return
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
	words := wantsWords(c)
	for _, raw := range *ids {
		id, err := uuid.Parse(raw)
		if err != nil {
			out.Errors = append(out.Errors, itemError{raw, http.StatusBadRequest, "The conversationId must be a GUID."})
			continue
		}
		tb, terr := s.transcript(c.Request.Context(), orgID(c), id.String(), words)
		if terr != nil {
			out.Errors = append(out.Errors, itemError{id.String(), terr.status, terr.detail})
			continue
		}
		out.Transcriptions = append(out.Transcriptions, *tb)
	}
	c.JSON(http.StatusOK, out)
}
