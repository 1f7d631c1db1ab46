package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/pipeline"
	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/pipeline/analysis/trained"
	"github.com/earshot/earshot/warehouse/catalog"
)

// train starts training one classifier per label of a labelled file
// (JSON Lines, gzipped or not: text, turns or a conversation id, and its
// labels), as earshot admin classifiers train and POST
// /Conversations/Classifiers/Train do; the examples are checked before the
// job starts.
func (c *classifierPages) train(ctx *gin.Context) {
	v := viewerFrom(ctx)
	again := func(status int, message, notice string) { c.listClassifiers(ctx, v, status, message, notice, "") }
	header, err := ctx.FormFile("labels")
	if err != nil {
		again(http.StatusBadRequest, "Choose a labelled file (JSON Lines) to train from.", "")
		return
	}
	if header.Size > trained.MaxUploadedLabelled {
		again(http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than %d MB; train from it with earshot admin classifiers train.", trained.MaxUploadedLabelled>>20), "")
		return
	}
	file, err := header.Open()
	if err != nil {
		c.failed(ctx, err)
		return
	}
	defer file.Close()
	labelled, err := trained.ReadLabelled(io.LimitReader(file, trained.MaxUploadedLabelled), trained.MaxUploadedLabelled)
	if err != nil {
		again(http.StatusBadRequest, "The file cannot be read: "+err.Error()+".", "")
		return
	}
	p := catalog.TrainParams{CategoryName: "Topics", Folds: trained.DefaultFolds, Seed: 1, Inactive: ctx.PostForm("activate") != "on"}
	for _, k := range analysis.Categories {
		if k == ctx.PostForm("category") {
			p.CategoryName = k
		}
	}
	labels := map[string]bool{}
	for _, l := range labelled {
		raw, err := json.Marshal(l)
		if err != nil {
			c.failed(ctx, err)
			return
		}
		p.Examples = append(p.Examples, raw)
		for _, label := range l.Labels {
			labels[label] = true
		}
	}
	job, err := c.Authoring.Train(ctx.Request.Context(), v.actor, p)
	mistake, isMistake := mistakeIn(err)
	switch {
	case c.refused(ctx, v, err):
	case isMistake:
		again(http.StatusBadRequest, mistake, "")
	case errors.Is(err, pipeline.ErrNoSlot):
		again(http.StatusTooManyRequests, "Your organization already has a dry run, re-classification or training running; try again in a few seconds.", "")
	case err != nil:
		c.failed(ctx, err)
	default:
		c.listClassifiers(ctx, v, http.StatusOK, "", fmt.Sprintf("Training %d classifier(s) from %d conversation(s). "+
			"Each is installed by its label's name when the job ends.", len(labels), len(labelled)), job.ID)
	}
}
