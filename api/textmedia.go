package api

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"net/http"
	"os"
	"path"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/pipeline/chat"
	"github.com/earshot/earshot/warehouse/catalog"
)

// textMediaUpload is POST /TextMedia/Upload: one conversation as .json or
// .json_chat, parsed at upload time so that a file the pipeline could not
// read is refused now, with the reason, instead of failing later.
func (s *conversationsAPI) textMediaUpload(c *gin.Context) error {
	ctx := c.Request.Context()
	org := orgID(c)
	limit := int64(chat.MaxBytes + uploadmeta.MaxBytes + 1<<20)
	if c.Request.ContentLength > limit {
		return conversationTooLarge // declared: answered before any of it is read
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limit)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return sentence(uploadmeta.SentenceNoMetadata)
	}
	var rawMeta, file []byte
	var sawMeta bool
	var fileName string
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return textReadProblem(err)
		}
		switch strings.ToLower(part.FormName()) {
		case "metadata":
			sawMeta = true
			rawMeta, err = io.ReadAll(io.LimitReader(part, uploadmeta.MaxBytes+1))
		case "file":
			fileName = part.FileName()
			file, err = io.ReadAll(io.LimitReader(part, chat.MaxBytes+1))
		default:
			_, err = io.Copy(io.Discard, part)
		}
		if err != nil {
			return textReadProblem(err)
		}
	}
	if !sawMeta {
		return sentence(uploadmeta.SentenceNoMetadata)
	}
	meta, merr := uploadmeta.Parse(rawMeta, uploadmeta.Text)
	if merr != nil {
		return metadataProblem(merr)
	}
	ext := strings.ToLower(path.Ext(fileName))
	if file == nil || (ext != ".json" && ext != ".json_chat") {
		return sentence(uploadmeta.SentenceExtension)
	}
	if len(file) > chat.MaxBytes {
		return conversationTooLarge
	}
	conv, err := chat.Parse(file)
	if err != nil {
		return problem.Field("file", err.Error(), "The file is not a conversation Earshot can read ("+causeOf(err)+").")
	}

	// A chosen Id is the conversation's public id; its own id still orders
	// it by arrival (publicids.go). Only the organization's own ids can be
	// taken: another's are neither refused nor revealed.
	id, publicID := catalog.NewID(), (*string)(nil)
	if meta.ID != "" {
		taken, err := s.deps.Interactions.IDTaken(ctx, org, meta.ID)
		if err != nil {
			return err
		}
		if taken {
			return idTaken
		}
		publicID = &meta.ID
	}
	if meta.FileName == "" {
		meta.FileName = cmp.Or(meta.ID, id) + ext
	} else if !strings.EqualFold(meta.Extension(), ext) {
		return sentence(uploadmeta.SentenceExtMismatch)
	}
	resolved, p := s.resolveMetadata(c, org, meta)
	if p != nil {
		return p
	}
	if owner, err := s.deps.Interactions.FileNameOwner(ctx, org, meta.FileName); err != nil || owner != "" {
		if err != nil {
			return err
		}
		return duplicateName(owner)
	}

	u := &uploadRequest{s: s, c: c, org: org, id: id, arrived: time.Now().UTC().Truncate(time.Microsecond), meta: meta}
	if p := u.stage(ctx, bytes.NewReader(file)); p != nil {
		return p
	}
	count := len(conv.Messages)
	it := catalog.Interaction{
		ID: id, OrgID: org, MediaType: catalog.MediaChat, Status: catalog.StatusProcessing, FileName: meta.FileName,
		OrigFileName: &fileName, StagedKey: &u.staged.key, FileSizeBytes: u.staged.size, SHA256: &u.staged.sha256,
		ArrivedOn: u.arrived, ChatMessageCount: &count, Source: "text", ModifiedOn: u.arrived, PublicID: publicID,
	}
	applyMetadata(&it, meta, resolved)
	err = s.deps.Interactions.CreateInteraction(ctx, it, meta.ApplyHierarchyToAgent)
	if err != nil {
		u.unstage()
		switch {
		case errors.Is(err, catalog.ErrIDTaken):
			return idTaken
		case errors.Is(err, catalog.ErrFileNameTaken):
			return s.duplicateOf(ctx, org, meta.FileName)
		default:
			return err
		}
	}
	c.JSON(http.StatusOK, uploadResult{ID: it.Public(), FileName: meta.FileName, FileSizeKb: (u.staged.size + 1023) / 1024})
	return nil
}

// idTaken answers a TextMedia Id the organization has already.
var idTaken = problem.Field("Id", "is taken.", "An interaction with this Id already exists.")

func textReadProblem(err error) *problem.Problem {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return conversationTooLarge
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return slowBody
	}
	return problem.New(http.StatusBadRequest, "The upload was cut off before it completed; nothing was stored. Send it again.")
}

// causeOf drops the first prefix of a chat parser's error ("not a readable chat: …"),
// keeping what is wrong with the file.
func causeOf(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, ": "); i >= 0 {
		return msg[i+2:]
	}
	return msg
}

// conversationTooLarge answers a conversation file over chat.MaxBytes.
var conversationTooLarge = problem.New(http.StatusRequestEntityTooLarge, "A conversation file must be at most 16 MiB.")
