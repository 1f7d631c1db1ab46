package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/pipeline/quality"
	"github.com/earshot/earshot/warehouse/catalog"
)

// MayManageQA reports whether the viewer's role manages evaluation forms,
// assignments and workflows.
func (v *viewer) MayManageQA() bool { return v.actor.Allows(access.ManageEvaluations) }

// formsPage is the organization's evaluation forms and the editor of a
// new one.
type formsPage struct {
	page
	Forms                      []formRow
	Name, Description, Outline string
	AutoScore                  bool // the new form answers its bound questions on every conversation
	Error, Notice              string
	Templates                  []templateRow
	Template                   templateInput // the new template's editor
	// from is the form whose outline the editor starts from: a changed
	// form is a new one.
	from string
}

// templateRow is a review workflow template as the list shows it.
type templateRow struct {
	Name, Type, Boss string
	Levels           int
	OnSampled        bool
}

// templateInput is the new template's editor: its levels and boss
// questions as lines (parseLevels, parseBossQuestions).
type templateInput struct {
	Name, Levels, Boss, Questions, Error string
	OnSampled                            bool
}

// templateExample is what the template editor starts from.
var templateExample = templateInput{Levels: "sam.supervisor\nanyone", Boss: "Calibration",
	Questions: "Action plan established? | No, Yes"}

// formRow is a form as the list shows it; an auto-scored one with how
// often people agreed with the classifiers on each bound question.
type formRow struct {
	ID, Name, Description, Created string
	Modules, Questions             int
	Active, Auto                   bool
	Agreement                      []agreementRow
}

// agreementRow is a bound question's agreement: of the answers people
// gave it (reviews of the classifiers' answers, and people's evaluations
// of the same conversations), how many were the classifiers'.
type agreementRow struct {
	Question         string
	Compared, Agreed int
	Rate             string // "—" before anyone answered
}

// forms lists the organization's evaluation forms, with the editor of a
// new one.
func (c *qualityPages) forms(ctx *gin.Context) {
	notice := ""
	if name := ctx.Query("created"); name != "" {
		notice = "Form “" + name + "” created: assign its evaluations from a conversation's page."
	}
	if name := ctx.Query("template"); name != "" {
		notice = "Workflow template “" + name + "” created: send a Completed evaluation for review from its page."
	}
	c.showForms(ctx, http.StatusOK, formsPage{Outline: formTextExample, Notice: notice, Template: templateExample, from: ctx.Query("from")})
}

// setFormActive offers a form for new evaluations or stops offering it.
func (c *qualityPages) setFormActive(ctx *gin.Context) {
	v := viewerFrom(ctx)
	err := c.Quality.SetFormActive(ctx.Request.Context(), v.actor, ctx.Param("id"), ctx.PostForm("active") == "yes")
	switch {
	case c.refused(ctx, v, err):
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/forms#forms")
	}
}

func (c *qualityPages) showForms(ctx *gin.Context, status int, p formsPage) {
	v := viewerFrom(ctx)
	list, err := c.Quality.Forms(ctx.Request.Context(), v.actor)
	if c.stopped(ctx, v, err) {
		return
	}
	templates, err := c.Quality.Templates(ctx.Request.Context(), v.actor)
	if c.stopped(ctx, v, err) {
		return
	}
	p.page = page{Title: "QA forms", Page: "forms", Viewer: v}
	for _, f := range list {
		row := formRowOf(f)
		if row.Auto {
			agreement, err := c.Quality.Agreement(ctx.Request.Context(), v.actor, f.ID)
			if c.stopped(ctx, v, err) {
				return
			}
			for _, q := range agreement {
				rate := "—"
				if q.Compared > 0 {
					rate = fmt.Sprintf("%.0f %%", 100*q.Rate())
				}
				row.Agreement = append(row.Agreement, agreementRow{q.QuestionText, q.Compared, q.Agreed, rate})
			}
		}
		p.Forms = append(p.Forms, row)
		var def quality.Form
		if f.ID == p.from && json.Unmarshal(f.Definition, &def) == nil {
			// Only a changed copy names classifiers (its bindings').
			classifiers, err := c.classifierNames(ctx, v)
			if c.stopped(ctx, v, err) {
				return
			}
			p.Name, p.Description, p.Outline, p.AutoScore = f.Name+" (changed)", f.Description, formText(def, classifiers), def.AutoScore
			p.Notice = "A changed copy of “" + f.Name + "”: create it, then stop offering the old one (its evaluations keep it)."
		}
	}
	for _, t := range templates {
		p.Templates = append(p.Templates, templateRowOf(t))
	}
	c.render(ctx, status, "forms", p)
}

func templateRowOf(t catalog.WorkflowTemplate) templateRow {
	row := templateRow{Name: t.Name, Type: t.WorkflowType, OnSampled: t.StartOnSampled}
	var def quality.Workflow
	if err := json.Unmarshal(t.Definition, &def); err == nil {
		row.Levels, row.Boss = len(def.Levels), def.BossModule.Name
	}
	return row
}

func formRowOf(f catalog.EvaluationForm) formRow {
	row := formRow{ID: f.ID, Name: f.Name, Description: f.Description, Created: f.CreatedOn.UTC().Format("2006-01-02"), Active: f.IsActive}
	var def quality.Form
	if err := json.Unmarshal(f.Definition, &def); err == nil {
		row.Modules, row.Auto = len(def.Modules), def.AutoScore
		for _, m := range def.Modules {
			row.Questions += len(m.Questions)
		}
	}
	return row
}

// createForm creates a form from the editor's outline (parseFormText), by
// the use case POST /Evaluations/Forms calls too.
func (c *qualityPages) createForm(ctx *gin.Context) {
	v := viewerFrom(ctx)
	p := formsPage{Name: strings.TrimSpace(ctx.PostForm("name")), Description: strings.TrimSpace(ctx.PostForm("description")),
		Outline: ctx.PostForm("outline"), AutoScore: ctx.PostForm("auto-score") == "yes"}
	classifiers, err := c.classifierNames(ctx, v)
	if c.stopped(ctx, v, err) {
		return
	}
	def, err := parseFormText(p.Outline, classifiers)
	def.AutoScore = p.AutoScore
	if err == nil && p.Name == "" {
		p.Error = "Not created: name the form."
		c.showForms(ctx, http.StatusBadRequest, p)
		return
	}
	if err == nil {
		_, err = c.Quality.CreateForm(ctx.Request.Context(), v.actor, p.Name, p.Description, def)
	}
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		p.Error = "Not created: " + mistake
		c.showForms(ctx, http.StatusBadRequest, p)
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/forms?created="+url.QueryEscape(p.Name))
	}
}

// classifierNames are the organization's classifiers by name, for the
// outline's bindings.
func (c *qualityPages) classifierNames(ctx *gin.Context, v *viewer) (classifierNames, error) {
	list, err := c.Classifiers.Classifiers(ctx.Request.Context(), v.OrgID, catalog.ClassifierFilter{})
	return newClassifierNames(list), err
}

// createTemplate creates a review workflow template from the editor, by
// the use case POST /Workflows/Templates calls too.
func (c *qualityPages) createTemplate(ctx *gin.Context) {
	v := viewerFrom(ctx)
	in := templateInput{Name: strings.TrimSpace(ctx.PostForm("template-name")), Levels: ctx.PostForm("levels"), Boss: strings.TrimSpace(ctx.PostForm("boss")),
		Questions: ctx.PostForm("questions"), OnSampled: ctx.PostForm("on-sampled") == "yes"}
	levels, err := parseLevels(in.Levels)
	var questions []quality.BossQuestion
	if err == nil {
		questions, err = parseBossQuestions(in.Questions)
	}
	if err == nil && in.Name == "" {
		err = invalid.At("name", "is required: name the template.")
	}
	if err == nil {
		_, err = c.Quality.CreateTemplate(ctx.Request.Context(), v.actor, qa.NewTemplate{Name: in.Name, StartOnSampled: in.OnSampled,
			Definition: quality.Workflow{Levels: levels, BossModule: quality.BossModule{Name: in.Boss, Questions: questions}}})
	}
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		in.Error = "Not created: " + mistake
		c.showForms(ctx, http.StatusBadRequest, formsPage{Outline: formTextExample, Template: in})
	case err != nil:
		c.failed(ctx, err)
	default:
		ctx.Redirect(http.StatusSeeOther, "/console/forms?template="+url.QueryEscape(in.Name)+"#templates-heading")
	}
}
