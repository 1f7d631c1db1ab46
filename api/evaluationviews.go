package api

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// evaluationView is an evaluation as GET /Evaluations shapes it, and the
// extension operations too, with status, formId and score added.
type evaluationView struct {
	ID               string           `json:"id"`
	EvaluationNumber int              `json:"evaluationNumber"`
	EvaluationName   *int             `json:"evaluationName"` // the vendor's int name; Earshot's evaluations have none
	SubmittedDate    *dates.Timestamp `json:"submittedDate"`
	AssignedDate     *dates.Timestamp `json:"assignedDate"`
	ModifiedOn       dates.Timestamp  `json:"modifiedOn"`
	Questions        []questionView   `json:"questions"`
	evaluationParties
	Status string   `json:"status"`
	FormID string   `json:"formId"`
	Score  *float64 `json:"score"`  // the whole form's weighted percentage
	Source string   `json:"source"` // Human, or Auto: answered by classifiers
}

// evaluationParties are who and what an evaluation is about; the
// document declares them objects (not nullable), so an absent one is
// omitted.
type evaluationParties struct {
	Agent        *evaluationAgent   `json:"agent,omitempty"`
	Analyst      *evaluationAnalyst `json:"analyst,omitempty"`
	Metadata     *metadataItem      `json:"metadata,omitempty"`
	CallSummary  *string            `json:"callSummary"`
	CustomerType *customerTypeView  `json:"customerType,omitempty"`
}

type evaluationAgent struct {
	ID         string  `json:"id"`
	AgentCode  *string `json:"agentCode"`
	FirstName  string  `json:"firstName"`
	LastName   string  `json:"lastName"`
	AgentEmail string  `json:"agentEmail"`
}

type evaluationAnalyst struct {
	ID        string  `json:"id"`
	DomainID  *string `json:"domainId"`
	UserName  string  `json:"userName"`
	Email     string  `json:"email"`
	FirstName string  `json:"firstName"`
	LastName  string  `json:"lastName"`
	Role      string  `json:"role"`
}

type customerTypeView struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	IsActive bool   `json:"isActive"`
}

// questionView is a form's question with the answer given (none or one).
type questionView struct {
	ID         string        `json:"id"`
	Text       string        `json:"questionText"`
	ShortText  string        `json:"shortQuestionText"`
	Answers    []answerView  `json:"answers"`
	Order      int           `json:"order"`
	HelperText string        `json:"helperText"`
	Required   bool          `json:"required"`
	Weight     float64       `json:"weight"`
	Type       string        `json:"type"`
	Category   string        `json:"category"`
	Tags       []quality.Tag `json:"tags"`
}

type answerView struct {
	ID                string          `json:"id"`
	Note              *string         `json:"note"`
	AnswerAlert       *string         `json:"answerAlert"`
	WeightedScore     *float64        `json:"weightedScore"`
	AnswerTags        []answerTagView `json:"answerTags"`
	FillInAnswerValue *string         `json:"fillInAnswerValue"`
	// An Auto evaluation's answer: what the classifiers answered, and who
	// confirmed or overrode it, when.
	AutoTagIDs []string         `json:"autoTagIds,omitempty"`
	ReviewedBy *string          `json:"reviewedBy,omitempty"`
	ReviewedOn *dates.Timestamp `json:"reviewedOn,omitempty"`
}

type answerTagView struct {
	TagID string      `json:"tagId"`
	Tag   quality.Tag `json:"tag"`
}

// moduleEvaluationView is an evaluation as GET /Evaluations/Modules shapes
// it: by module, each with its score.
type moduleEvaluationView struct {
	EvaluationNumber int              `json:"evaluationNumber"`
	SubmittedDate    *dates.Timestamp `json:"submittedDate"`
	AssignedDate     *dates.Timestamp `json:"assignedDate"`
	ModifiedOn       dates.Timestamp  `json:"modifiedOn"`
	Modules          []moduleView     `json:"modules"`
	evaluationParties
}

type moduleView struct {
	ModuleID    string               `json:"moduleId"`
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Score       float64              `json:"score"`
	Questions   []moduleQuestionView `json:"questions"`
}

type moduleQuestionView struct {
	QuestionID string             `json:"questionId"`
	Question   string             `json:"question"`
	Category   string             `json:"category"`
	Answers    []moduleAnswerView `json:"answers"`
}

type moduleAnswerView struct {
	AnswerID     string                `json:"answerId"`
	FillInAnswer *string               `json:"fillInAnswer"`
	Note         *string               `json:"note"`
	AnswerTags   []moduleAnswerTagView `json:"answerTags"`
}

type moduleAnswerTagView struct {
	AnswerTagID string `json:"answerTagId"`
	TagValue    string `json:"tagValue"`
}

// evaluationPage is what a page of evaluations refers to, read once.
type evaluationPage struct {
	forms   map[string]*quality.Form
	parties map[string]evaluationParties // by evaluation id
}

// readEvaluationPage reads the forms, people and conversations of
// evaluations.
func (s *qualityAPI) readEvaluationPage(ctx context.Context, org string, list []catalog.Evaluation) (*evaluationPage, error) {
	page := &evaluationPage{forms: map[string]*quality.Form{}, parties: map[string]evaluationParties{}}
	agents, analysts := map[string]*evaluationAgent{}, map[string]*evaluationAnalyst{}
	var conversations []string
	for _, e := range list {
		if page.forms[e.FormID] == nil {
			form, err := s.qa.Form(ctx, org, e.FormID)
			if err != nil {
				return nil, err
			}
			page.forms[e.FormID] = form
		}
		if e.AgentID != nil && agents[*e.AgentID] == nil {
			a, err := s.deps.People.Agent(ctx, org, *e.AgentID)
			if err != nil {
				return nil, err
			}
			agents[a.ID] = &evaluationAgent{ID: a.ID, AgentCode: a.AgentCode, FirstName: a.FirstName, LastName: a.LastName, AgentEmail: a.AgentEmail}
		}
		if _, seen := analysts[e.AnalystID]; !seen && e.AnalystID != "" { // an Auto evaluation has no analyst
			u, err := s.deps.People.User(ctx, org, e.AnalystID)
			switch {
			case errors.Is(err, catalog.ErrNotFound): // the analyst was deleted: the evaluation shows none
				analysts[e.AnalystID] = nil
			case err != nil:
				return nil, err
			default:
				analysts[u.ID] = &evaluationAnalyst{ID: u.ID, UserName: u.UserName, Email: u.Email, FirstName: u.FirstName, LastName: u.LastName, Role: u.RoleName}
			}
		}
		conversations = append(conversations, e.ConversationID)
	}
	records, err := s.deps.Interactions.Interactions(ctx, org, catalog.InteractionFilter{IDs: conversations, ExactIDs: true, Limit: len(conversations)})
	if err != nil {
		return nil, err
	}
	metadata := map[string]*metadataItem{}
	for _, it := range records {
		item := newMetadataItem(it)
		metadata[it.ID] = &item
	}
	for _, e := range list {
		p := evaluationParties{Analyst: analysts[e.AnalystID], Metadata: metadata[e.ConversationID], CallSummary: e.CallSummary}
		if e.AgentID != nil {
			p.Agent = agents[*e.AgentID]
		}
		if e.CustomerTypeID != nil {
			if ct, ok := page.forms[e.FormID].CustomerType(*e.CustomerTypeID); ok {
				p.CustomerType = &customerTypeView{ID: ct.ID, Name: ct.Name, IsActive: ct.IsActive}
			}
		}
		page.parties[e.ID] = p
	}
	return page, nil
}

// stampOf is a time where the vendor's document makes it nullable.
func stampOf(t time.Time) *dates.Timestamp {
	ts := dates.Timestamp(t)
	return &ts
}

func (p *evaluationPage) view(e catalog.Evaluation) evaluationView {
	form := p.forms[e.FormID]
	answers := map[string]catalog.EvaluationAnswer{}
	for _, a := range e.Answers {
		answers[a.QuestionID] = a
	}
	v := evaluationView{ID: e.ID, EvaluationNumber: e.Number, AssignedDate: stampOf(e.AssignedOn),
		ModifiedOn: dates.Timestamp(e.ModifiedOn), Questions: []questionView{}, evaluationParties: p.parties[e.ID],
		Status: e.Status, FormID: e.FormID, Score: e.Score, Source: e.Source}
	if e.SubmittedOn != nil {
		v.SubmittedDate = stampOf(*e.SubmittedOn)
	}
	for _, m := range form.Modules {
		for _, q := range m.Questions {
			qv := questionView{ID: q.ID, Text: q.Text, ShortText: q.ShortText, Answers: []answerView{}, Order: q.Order, HelperText: q.HelperText,
				Required: q.Required, Weight: q.Weight, Type: q.Type, Category: q.Category, Tags: q.Tags}
			if a, ok := answers[q.ID]; ok {
				av := answerView{ID: a.AnswerID, Note: a.Note, WeightedScore: a.WeightedScore, AnswerTags: []answerTagView{}, FillInAnswerValue: a.FillIn,
					AutoTagIDs: a.AutoTagIDs, ReviewedBy: a.ReviewedBy}
				if a.ReviewedOn != nil {
					av.ReviewedOn = stampOf(*a.ReviewedOn)
				}
				for _, t := range q.Tags {
					if slices.Contains(a.TagIDs, t.ID) {
						av.AnswerTags = append(av.AnswerTags, answerTagView{TagID: t.ID, Tag: t})
					}
				}
				qv.Answers = append(qv.Answers, av)
			}
			v.Questions = append(v.Questions, qv)
		}
	}
	return v
}

func (p *evaluationPage) moduleView(e catalog.Evaluation) moduleEvaluationView {
	full := p.view(e)
	form := p.forms[e.FormID]
	scores := form.Score(qa.AnswersOf(e))
	v := moduleEvaluationView{EvaluationNumber: e.Number, SubmittedDate: full.SubmittedDate, AssignedDate: full.AssignedDate,
		ModifiedOn: full.ModifiedOn, Modules: []moduleView{}, evaluationParties: full.evaluationParties}
	byQuestion := map[string]questionView{}
	for _, q := range full.Questions {
		byQuestion[q.ID] = q
	}
	for _, m := range form.Modules {
		mv := moduleView{ModuleID: m.ID, Name: m.Name, Description: m.Description, Score: scores.Modules[m.ID], Questions: []moduleQuestionView{}}
		for _, q := range m.Questions {
			qv := moduleQuestionView{QuestionID: q.ID, Question: q.Text, Category: q.Category, Answers: []moduleAnswerView{}}
			for _, a := range byQuestion[q.ID].Answers {
				av := moduleAnswerView{AnswerID: a.ID, FillInAnswer: a.FillInAnswerValue, Note: a.Note, AnswerTags: []moduleAnswerTagView{}}
				for _, t := range a.AnswerTags {
					av.AnswerTags = append(av.AnswerTags, moduleAnswerTagView{AnswerTagID: t.TagID, TagValue: t.Tag.Value})
				}
				qv.Answers = append(qv.Answers, av)
			}
			mv.Questions = append(mv.Questions, qv)
		}
		v.Modules = append(v.Modules, mv)
	}
	return v
}

// writeEvaluation answers one evaluation.
func (s *qualityAPI) writeEvaluation(c *gin.Context, status int, e catalog.Evaluation) error {
	page, err := s.readEvaluationPage(c.Request.Context(), orgID(c), []catalog.Evaluation{e})
	if err != nil {
		return err
	}
	c.JSON(status, page.view(qa.Completed(page.forms[e.FormID], e)))
	return nil
}

// Page sizes of /Evaluations (the vendor's default).
const evaluationsDefaultPageSize = 10

// readEvaluationFilter reads the parameters the vendor's two GETs share
// (HierarchyId only where withHierarchy).
func (s *qualityAPI) readEvaluationFilter(c *gin.Context, withHierarchy bool) (catalog.EvaluationFilter, error) {
	get := queryParams(c)
	errs := fieldErrors{}
	var f catalog.EvaluationFilter
	f.ModifiedFrom, f.ModifiedTo = errs.date(get, "StartDate", false), errs.date(get, "EndDate", true)
	if f.ModifiedFrom != nil && f.ModifiedTo != nil && f.ModifiedTo.Before(*f.ModifiedFrom) {
		errs.add("EndDate", "must not be before StartDate.")
	}
	f.Status = errs.choice(get, "Status", catalog.EvaluationStatuses...)
	f.Source = errs.choice(get, "Source", catalog.SourceHuman, catalog.SourceAuto)
	if v, ok := get("LastId"); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			errs.add("LastId", "must be an evaluationNumber (a whole number).")
		}
		f.AfterNumber = n
	}
	f.Limit = errs.boundedPageSize(get, "PageSize", evaluationsDefaultPageSize, maxPageSize)
	var hierarchy []string
	if withHierarchy {
		if id := errs.guid(get, "HierarchyId"); id != "" {
			hierarchy = []string{id}
		}
	}
	var err error
	if f.NodeIDs, f.Scope, err = s.visibleNodes(c.Request.Context(), orgID(c), errs, "HierarchyId", hierarchy, "", nil); err != nil {
		return f, err
	}
	if p := errs.problem(); p != nil {
		return f, p
	}
	return f, nil
}

// listEvaluations is GET /Evaluations: by evaluationNumber, filtered on
// the last modification, the status, and after LastId.
func (s *qualityAPI) listEvaluations(c *gin.Context) error {
	return s.evaluationPageOf(c, false, func(p *evaluationPage, e catalog.Evaluation) any { return p.view(e) })
}

// listModuleEvaluations is GET /Evaluations/Modules: the same, by module
// with each module's score, and HierarchyId (the conversation's node or
// one below it).
func (s *qualityAPI) listModuleEvaluations(c *gin.Context) error {
	return s.evaluationPageOf(c, true, func(p *evaluationPage, e catalog.Evaluation) any { return p.moduleView(e) })
}

func (s *qualityAPI) evaluationPageOf(c *gin.Context, withHierarchy bool, view func(*evaluationPage, catalog.Evaluation) any) error {
	f, err := s.readEvaluationFilter(c, withHierarchy)
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), orgID(c)
	list, err := s.deps.Quality.Evaluations(ctx, org, f)
	if err != nil {
		return err
	}
	page, err := s.readEvaluationPage(ctx, org, list)
	if err != nil {
		return err
	}
	out := make([]any, len(list))
	for i, e := range list {
		out[i] = view(page, qa.Completed(page.forms[e.FormID], e))
	}
	c.JSON(http.StatusOK, out)
	return nil
}
