package console

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/internal/app/window"
	"github.com/earshot/earshot/internal/contract/dates"
	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Authoring creates, changes, dry-runs, re-runs and trains classifiers by
// the use cases the API calls too (classifiers.Service). A definition that
// does not fit its type and examples that cannot train are an
// *invalid.Field, and pipeline.ErrNoSlot says the
// organization's evaluations are all in use.
type Authoring interface {
	Classifier(ctx context.Context, actor access.Actor, id string) (catalog.Classifier, error)
	Create(ctx context.Context, actor access.Actor, in catalog.ClassifierInput) (catalog.Classifier, error)
	Update(ctx context.Context, actor access.Actor, id string, in catalog.ClassifierInput) (catalog.Classifier, error)
	DryRun(ctx context.Context, actor access.Actor, id string, from, to time.Time) (classifiers.DryRun, error)
	Reclassify(ctx context.Context, actor access.Actor, id string, from, to time.Time) (catalog.JobRun, error)
	Train(ctx context.Context, actor access.Actor, p catalog.TrainParams) (catalog.JobRun, error)
}

// exampleRule is a new phrase rule's starting definition.
const exampleRule = `{
  "groups": [
    {"rules": [{"phrases": ["speak to a manager", "talk to your supervisor"], "speaker": "Customer"}]}
  ]
}`

// classifierForm is the page of one classifier (or a new one).
type classifierForm struct {
	page
	ID, Name, Description, Category, Type, Definition string
	Version                                           int
	Active, Trained                                   bool
	Categories                                        []string
	Error, Notice                                     string
	From, To                                          string
	Run                                               *classifiers.DryRun
	Hits                                              []conversationRow // some conversations the dry run hits
	Job                                               string            // the re-classification started, whose page the notice links
	// The phrases editor: the rule's phrases one a line and its speaker;
	// JSONEditor when the definition says more than it can show.
	Phrases, Speaker string
	Speakers         []string
	JSONEditor       bool
}

// withEditors fills the phrases editor from the definition.
func (f *classifierForm) withEditors() {
	f.Speakers = speakers
	phrases, speaker, ok := simplePhrases(f.Definition)
	f.Phrases, f.Speaker, f.JSONEditor = strings.Join(phrases, "\n"), speaker, !ok
}

// MayAuthor reports whether the viewer's role changes classifiers (the
// pages of classifiers are for authors; everyone sees their results).
func (v *viewer) MayAuthor() bool { return v.actor.Allows(access.ManageClassifiers) }

// classifiers lists the organization's classifiers.
func (c *classifierPages) classifiers(ctx *gin.Context) {
	v := viewerFrom(ctx)
	c.listClassifiers(ctx, v, http.StatusOK, "", "", "")
}

// listClassifiers renders the list with an error or a notice, and the job
// it started ("" for none).
func (c *classifierPages) listClassifiers(ctx *gin.Context, v *viewer, status int, message, notice, job string) {
	list, err := c.Classifiers.Classifiers(ctx.Request.Context(), v.OrgID, catalog.ClassifierFilter{})
	if err != nil {
		c.failed(ctx, err)
		return
	}
	c.render(ctx, status, "classifiers", classifiersPage{page: page{Title: "Classifiers", Page: "classifiers", Viewer: v},
		Classifiers: list, Categories: analysis.Categories, Error: message, Notice: notice, Job: job})
}

// classifiersPage is the list of classifiers with the training form.
type classifiersPage struct {
	page
	Classifiers        []catalog.Classifier
	Categories         []string
	Error, Notice, Job string // Job: the training started, whose page the notice links
}

// classifier shows a classifier's form (or a new phrase rule's), with
// its dry run and re-classification.
func (c *classifierPages) classifier(ctx *gin.Context) {
	v := viewerFrom(ctx)
	f, ok := c.formOf(ctx, v, ctx.Param("id"))
	if ok {
		c.render(ctx, http.StatusOK, "classifier", f)
	}
}

// formOf is the form of a stored classifier, or of a new phrase rule for
// the id "new"; it answers a missing one itself.
func (c *classifierPages) formOf(ctx *gin.Context, v *viewer, id string) (classifierForm, bool) {
	now := time.Now().UTC()
	f := classifierForm{page: page{Title: "New phrase rule", Page: "classifiers", Viewer: v}, Type: analysis.TypeClassifier,
		Category: "Topics", Definition: exampleRule, Categories: analysis.Categories,
		From: now.AddDate(0, 0, -7).Format(time.DateOnly), To: now.Format(time.DateOnly)}
	if id == "new" {
		f.withEditors()
		return f, true
	}
	k, err := c.Authoring.Classifier(ctx.Request.Context(), v.actor, id)
	if errors.Is(err, catalog.ErrNotFound) {
		c.refuse(ctx, http.StatusNotFound, v, "Not found", "No classifier with this id exists in your organization.")
		return f, false
	}
	if err != nil {
		c.failed(ctx, err)
		return f, false
	}
	f.page.Title, f.ID, f.Name, f.Description, f.Category, f.Type, f.Version, f.Active = k.Name, k.ID, k.Name, k.Description, k.CategoryName, k.Type, k.Version, k.IsActive
	f.Definition = indent(k.Definition)
	var def struct{ Model string }
	f.Trained = json.Unmarshal(k.Definition, &def) == nil && def.Model == "trained"
	if ctx.Query("saved") != "" {
		f.Notice = fmt.Sprintf("Saved as version %d.", k.Version)
	}
	f.withEditors()
	return f, true
}

func indent(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

// saveClassifier creates or changes a classifier from its form. A
// trained model's definition is not edited here (it is trained); its
// other fields are.
func (c *classifierPages) saveClassifier(ctx *gin.Context) {
	v := viewerFrom(ctx)
	id := ctx.Param("id")
	f, ok := c.formOf(ctx, v, id)
	if !ok {
		return
	}
	f.Name, f.Description = strings.TrimSpace(ctx.PostForm("name")), strings.TrimSpace(ctx.PostForm("description"))
	f.Category, f.Active = ctx.PostForm("category"), ctx.PostForm("active") == "on"
	in := catalog.ClassifierInput{Name: &f.Name, Description: &f.Description, CategoryName: &f.Category, IsActive: &f.Active}
	if !f.Trained {
		f.Definition = ctx.PostForm("definition")
		byPhrases := ctx.PostForm("editor") == "phrases" // else the JSON definition
		if byPhrases {
			f.Definition = phrasesDefinition(ctx.PostForm("phrases"), ctx.PostForm("speaker"))
		}
		f.withEditors()
		f.JSONEditor = !byPhrases
		if !json.Valid([]byte(f.Definition)) {
			f.Error = "The definition is not JSON: check its brackets, quotes and commas."
			c.render(ctx, http.StatusBadRequest, "classifier", f)
			return
		}
		in.Definition = json.RawMessage(f.Definition)
	}
	var k catalog.Classifier
	var err error
	if id == "new" {
		in.Type, in.Reportable, in.Groupable = &f.Type, ptr(true), ptr(false)
		k, err = c.Authoring.Create(ctx.Request.Context(), v.actor, in)
	} else {
		k, err = c.Authoring.Update(ctx.Request.Context(), v.actor, id, in)
	}
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
		return
	case isMistake:
		f.Error = mistake
		c.render(ctx, http.StatusBadRequest, "classifier", f)
		return
	case err != nil:
		c.failed(ctx, err)
		return
	}
	ctx.Redirect(http.StatusSeeOther, "/console/classifiers/"+k.ID+"?saved=1")
}

func ptr[T any](v T) *T { return &v }

// rangeOf reads a form's from and to dates: at most window.Filtered, the end
// the whole of its day.
func rangeOf(ctx *gin.Context, f *classifierForm) (from, to time.Time, ok bool) {
	f.From, f.To = ctx.PostForm("from"), ctx.PostForm("to")
	from, err1 := dates.Parse(f.From)
	to, err2 := dates.ParseEnd(f.To)
	switch {
	case err1 != nil || err2 != nil:
		f.Error = "The range needs two dates such as 2025-10-01."
	case to.Before(from) || to.Sub(from) > window.Filtered:
		f.Error = "The range must run forwards, " + window.Days(window.Filtered) + " days at the most."
	default:
		return from, to, true
	}
	return from, to, false
}

// dryRun evaluates the classifier over a range of what the viewer may
// see, writing nothing, and shows its hits.
func (c *classifierPages) dryRun(ctx *gin.Context) {
	c.rerun(ctx, func(f *classifierForm, from, to time.Time) error {
		run, err := c.Authoring.DryRun(ctx.Request.Context(), f.Viewer.actor, f.ID, from, to)
		f.Run = &run
		if err == nil {
			f.Hits, err = c.rowsOf(ctx.Request.Context(), f.Viewer, run.Samples)
		}
		return err
	})
}

// rowsOf are the list rows of conversations by their public ids, in the
// order given.
func (c *Console) rowsOf(ctx context.Context, v *viewer, public []string) ([]conversationRow, error) {
	if len(public) == 0 {
		return nil, nil
	}
	internal, err := c.Conversations.InternalIDs(ctx, v.OrgID, public)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(public))
	for i, id := range public {
		ids[i] = cmp.Or(internal[id], id)
	}
	list, err := c.Conversations.Interactions(ctx, v.OrgID, catalog.InteractionFilter{IDs: ids, ExactIDs: true, Scope: v.scope(), Limit: len(ids)})
	if err != nil {
		return nil, err
	}
	byID := map[string]conversationRow{}
	for _, it := range list {
		byID[it.ID] = rowOf(it)
	}
	var out []conversationRow
	for _, id := range ids {
		if row, ok := byID[id]; ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// reclassify starts re-classifying a range with the current version.
func (c *classifierPages) reclassify(ctx *gin.Context) {
	c.rerun(ctx, func(f *classifierForm, from, to time.Time) error {
		job, err := c.Authoring.Reclassify(ctx.Request.Context(), f.Viewer.actor, f.ID, from, to)
		f.Notice = "Re-classifying " + f.From + " to " + f.To + " with version " + fmt.Sprint(f.Version) + "."
		f.Job = job.ID
		return err
	})
}

// rerun runs a dry run or a re-classification over the form's range.
func (c *classifierPages) rerun(ctx *gin.Context, run func(f *classifierForm, from, to time.Time) error) {
	v := viewerFrom(ctx)
	f, ok := c.formOf(ctx, v, ctx.Param("id"))
	if !ok {
		return
	}
	from, to, ok := rangeOf(ctx, &f)
	if !ok {
		c.render(ctx, http.StatusBadRequest, "classifier", f)
		return
	}
	err := run(&f, from, to)
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case errors.Is(err, pipeline.ErrNoSlot):
		f.Run, f.Notice = nil, ""
		f.Error = "Your organization already has a dry run, re-classification or training running; try again in a few seconds."
		c.render(ctx, http.StatusTooManyRequests, "classifier", f)
	case isMistake:
		f.Run, f.Notice, f.Error = nil, "", mistake
		c.render(ctx, http.StatusBadRequest, "classifier", f)
	case err != nil:
		c.failed(ctx, err)
	default:
		c.render(ctx, http.StatusOK, "classifier", f)
	}
}
