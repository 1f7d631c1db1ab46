package api

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/api/problem"
	"github.com/earshot/earshot/internal/contract/uploadmeta"
	"github.com/earshot/earshot/internal/signedurl"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// uploadResult is the 200 body of the upload operations.
type uploadResult struct {
	ID         string `json:"id"`
	FileName   string `json:"fileName"`
	FileSizeKb int64  `json:"fileSizeKb"`
}

// errTooLarge marks an upload over the size limit.
var errTooLarge = errors.New("upload over the size limit")

// limitedReader counts, hashes and caps what passes through it.
type limitedReader struct {
	r     io.Reader
	n     int64
	limit int64
	hash  hash.Hash
}

func newLimitedReader(r io.Reader, limit int64) *limitedReader {
	return &limitedReader{r: r, limit: limit, hash: sha256.New()}
}

func (l *limitedReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	l.hash.Write(p[:n])
	if l.limit > 0 && l.n > l.limit {
		return n, errTooLarge
	}
	return n, err
}

func (l *limitedReader) sum() string { return hex.EncodeToString(l.hash.Sum(nil)) }

// stagedFile is an upload written to object storage.
type stagedFile struct {
	key    string
	size   int64
	sha256 string
}

// uploadRequest is one POST /Media/Upload as it is read, part by part.
type uploadRequest struct {
	s         *conversationsAPI
	c         *gin.Context
	org       string
	id        string
	arrived   time.Time
	meta      *uploadmeta.Metadata
	resolved  *catalog.UploadRefs
	signedURL string
	fileParts int
	origName  string
	spool     *os.File // the file, when it came before the metadata
	staged    *stagedFile
}

// mediaUpload is POST /Media/Upload (CONTRACT §3). The file streams to
// object storage while it is counted and hashed; memory does not grow with
// its size. Checks that can be made before the file arrives are made first.
func (s *conversationsAPI) mediaUpload(c *gin.Context) error {
	u := &uploadRequest{s: s, c: c, org: orgID(c), id: catalog.NewID(), arrived: time.Now().UTC().Truncate(time.Microsecond)}
	defer u.cleanup()
	p := u.run()
	if p != nil {
		if u.staged != nil {
			u.unstage()
		}
		return p
	}
	c.JSON(http.StatusOK, uploadResult{ID: u.id, FileName: u.meta.FileName, FileSizeKb: (u.staged.size + 1023) / 1024})
	return nil
}

func sentence(s string) *problem.Problem { return problem.New(http.StatusBadRequest, s) }

// duplicateName answers an upload whose file name the organization has
// already: the contract's sentence, and (an extension member) the
// interaction that has it, with which a bulk load run again carries on.
func duplicateName(owner string) *problem.Problem {
	p := sentence(uploadmeta.SentenceDuplicate)
	if owner != "" {
		p.Extensions = map[string]any{"interactionId": owner}
	}
	return p
}

// duplicateOf is duplicateName for an upload that lost the race for the
// name at insert: the owner is looked up (and left out if that fails).
func (s *conversationsAPI) duplicateOf(ctx context.Context, org, fileName string) *problem.Problem {
	owner, _ := s.deps.Interactions.FileNameOwner(ctx, org, fileName)
	return duplicateName(owner)
}

// readSize is how much an upload's body is read from the connection at
// a time. The multipart reader reads a few kilobytes at a time, and each
// read of the connection is a system call costing about as much as
// copying many kilobytes.
const readSize = 256 << 10

var bulkReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, readSize) }}

func (u *uploadRequest) run() *problem.Problem {
	ctx := u.c.Request.Context()
	limit := u.s.opts.MaxUploadBytes + uploadmeta.MaxBytes + 1<<20 // the file, its metadata, the multipart framing
	if u.c.Request.ContentLength > limit {
		return u.tooLarge() // declared: answered before any of it is read
	}
	limited := http.MaxBytesReader(u.c.Writer, u.c.Request.Body, limit)
	body := bulkReaders.Get().(*bufio.Reader)
	body.Reset(limited)
	defer func() {
		u.c.Request.Body = limited // what a refusal drains: the buffer goes back to the pool
		body.Reset(nil)
		bulkReaders.Put(body)
	}()
	u.c.Request.Body = struct {
		io.Reader
		io.Closer
	}{body, limited}
	mr, err := u.c.Request.MultipartReader()
	if err != nil {
		return sentence(uploadmeta.SentenceNoMetadata)
	}
	sawMetadata := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return u.readFailure(err)
		}
		var p *problem.Problem
		switch strings.ToLower(part.FormName()) {
		case "metadata":
			sawMetadata = true
			p = u.readMetadata(ctx, part)
		case "signedurl":
			data, err := io.ReadAll(io.LimitReader(part, 8<<10))
			if err != nil {
				return u.readFailure(err)
			}
			u.signedURL = strings.TrimSpace(string(data))
		case "file":
			p = u.readFile(ctx, part)
		default:
			_, err = io.Copy(io.Discard, part) // unknown parts are ignored
			if err != nil {
				return u.readFailure(err)
			}
		}
		part.Close()
		if p != nil {
			return p
		}
	}
	if !sawMetadata {
		return sentence(uploadmeta.SentenceNoMetadata)
	}
	if (u.fileParts > 0) == (u.signedURL != "") || u.fileParts > 1 {
		return sentence(uploadmeta.SentenceFileOrURL)
	}
	if u.spool != nil {
		if p := u.stage(ctx, u.spool); p != nil {
			return p
		}
	}
	if u.signedURL != "" {
		if p := u.fetch(ctx); p != nil {
			return p
		}
	}
	return u.record(ctx)
}

// readMetadata parses the metadata and checks what it names in the
// organization, before any file is staged.
func (u *uploadRequest) readMetadata(ctx context.Context, part *multipart.Part) *problem.Problem {
	raw, err := io.ReadAll(io.LimitReader(part, uploadmeta.MaxBytes+1))
	if err != nil {
		return u.readFailure(err)
	}
	meta, merr := uploadmeta.Parse(raw, uploadmeta.Media)
	if merr != nil {
		return metadataProblem(merr)
	}
	u.meta = meta
	if u.fileParts > 0 && uploadmeta.ExtensionOf(u.origName) != meta.Extension() {
		return sentence(uploadmeta.SentenceExtMismatch)
	}
	resolved, p := u.s.resolveMetadata(u.c, u.org, meta)
	if p != nil {
		return p
	}
	u.resolved = resolved
	owner, err := u.s.deps.Interactions.FileNameOwner(ctx, u.org, meta.FileName)
	if err != nil {
		return u.s.internal(u.c, err)
	}
	if owner != "" {
		return duplicateName(owner)
	}
	return nil
}

func metadataProblem(e *uploadmeta.Error) *problem.Problem {
	p := sentence(e.Sentence)
	p.Errors = e.Fields
	return p
}

// readFile stages the file part: straight to object storage when the
// metadata is known, else to a temporary file until it is.
func (u *uploadRequest) readFile(ctx context.Context, part *multipart.Part) *problem.Problem {
	u.fileParts++
	if u.fileParts > 1 {
		return sentence(uploadmeta.SentenceFileOrURL)
	}
	u.origName = part.FileName()
	if u.meta != nil {
		if uploadmeta.ExtensionOf(u.origName) != u.meta.Extension() {
			return sentence(uploadmeta.SentenceExtMismatch)
		}
		return u.stage(ctx, part)
	}
	f, err := os.CreateTemp("", "earshot-upload-*")
	if err != nil {
		return u.s.internal(u.c, err)
	}
	u.spool = f
	lr := newLimitedReader(part, u.s.opts.MaxUploadBytes)
	if _, err := io.Copy(f, lr); err != nil {
		return u.readFailure(err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return u.s.internal(u.c, err)
	}
	return nil
}

// stagingKey is where the upload's file is staged (catalog.StagedKey).
func (u *uploadRequest) stagingKey() string {
	return catalog.StagedKey(u.org, u.arrived, u.id, u.meta.FileName)
}

// stage streams r to object storage, counting and hashing it.
func (u *uploadRequest) stage(ctx context.Context, r io.Reader) *problem.Problem {
	lr := newLimitedReader(r, u.s.opts.MaxUploadBytes)
	key := u.stagingKey()
	if _, err := u.s.deps.Storage.Put(ctx, key, lr, blob.PutOptions{IfAbsent: true}); err != nil {
		return u.readFailure(err)
	}
	u.staged = &stagedFile{key: key, size: lr.n, sha256: lr.sum()}
	return nil
}

// fetch downloads the signedUrl into object storage.
func (u *uploadRequest) fetch(ctx context.Context) *problem.Problem {
	body, err := u.s.deps.SignedURLs.Open(ctx, u.signedURL)
	if errors.Is(err, signedurl.ErrTooLarge) {
		return u.tooLarge()
	}
	if err != nil {
		return problem.Field("signedUrl", err.Error(), "The signedUrl could not be downloaded: "+signedurl.Reason(err)+".")
	}
	defer body.Close()
	return u.stage(ctx, body)
}

// readFailure answers an error while reading the request or staging it.
func (u *uploadRequest) readFailure(err error) *problem.Problem {
	var tooBig *http.MaxBytesError
	if errors.Is(err, errTooLarge) || errors.As(err, &tooBig) {
		return u.tooLarge()
	}
	if errors.Is(err, signedurl.ErrIncomplete) {
		reason := signedurl.Reason(err)
		return problem.Field("signedUrl", reason, "The signedUrl download did not complete ("+reason+"); nothing was stored. Try again.")
	}
	if errors.Is(err, blob.ErrInvalidKey) {
		return sentence(uploadmeta.SentenceFileName)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return slowBody
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "multipart") {
		return problem.New(http.StatusBadRequest, "The upload was cut off before it completed; nothing was stored. Send it again.")
	}
	return u.s.internal(u.c, err)
}

// tooLarge answers an upload, or a signedUrl's file, over the size limit:
// whether its length was declared or found while reading it.
func (u *uploadRequest) tooLarge() *problem.Problem {
	return problem.New(http.StatusRequestEntityTooLarge, fmt.Sprintf("The upload is larger than the limit of %d bytes.", u.s.opts.MaxUploadBytes))
}

// record writes the interaction; the unique file name decides between
// concurrent uploads of one name.
func (u *uploadRequest) record(ctx context.Context) *problem.Problem {
	m := u.meta
	it := catalog.Interaction{
		ID: u.id, OrgID: u.org, MediaType: m.UploadType, Status: catalog.StatusProcessing, FileName: m.FileName,
		StagedKey: &u.staged.key, FileSizeBytes: u.staged.size, SHA256: &u.staged.sha256, ArrivedOn: u.arrived,
		Source: "file", ModifiedOn: u.arrived,
	}
	if u.signedURL != "" {
		it.Source = "signedUrl"
	} else if u.origName != "" {
		it.OrigFileName = &u.origName
	}
	applyMetadata(&it, m, u.resolved)
	err := u.s.deps.Interactions.CreateInteraction(ctx, it, m.ApplyHierarchyToAgent)
	if errors.Is(err, catalog.ErrFileNameTaken) {
		return u.s.duplicateOf(ctx, u.org, m.FileName)
	}
	if err != nil {
		return u.s.internal(u.c, err)
	}
	return nil
}

// applyMetadata copies the metadata and what it resolved to onto a record.
func applyMetadata(it *catalog.Interaction, m *uploadmeta.Metadata, r *catalog.UploadRefs) {
	it.InteractionDate, it.CallDirection, it.ClientCallID = m.InteractionDate, m.CallDirection, m.ClientCallID
	it.CustomerName, it.Phone, it.Email = m.Name, m.Phone, m.Email
	it.AgentCode, it.AgentFirstName, it.AgentLastName = m.AgentCode, m.AgentFirstName, m.AgentLastName
	it.LocaleID, it.ExtendedMetadata = m.LocaleID, m.Extended
	it.HierarchyNodeID = r.NodeID
	if a := r.Agent; a != nil {
		it.AgentID = &a.ID
		if it.AgentFirstName == nil && it.AgentLastName == nil {
			it.AgentFirstName, it.AgentLastName = &a.FirstName, &a.LastName
		}
	}
}

// unstage removes a staged object that no record will point to.
func (u *uploadRequest) unstage() {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(u.c.Request.Context()), 30*time.Second)
	defer cancel()
	if err := u.s.deps.Storage.Delete(ctx, u.staged.key); err != nil && !errors.Is(err, blob.ErrNotFound) {
		u.s.deps.Logger.Error("upload: could not remove a staged object", "key", u.staged.key, "err", err)
	}
}

func (u *uploadRequest) cleanup() {
	if u.spool != nil {
		u.spool.Close()
		os.Remove(u.spool.Name())
	}
}

// resolveMetadata finds the hierarchy node and the agent the metadata names.
// An unknown or mismatched hierarchy id/code is refused; an unknown
// AgentCode is kept on the record without a link (the agent may be created
// later).
func (s *conversationsAPI) resolveMetadata(c *gin.Context, org string, m *uploadmeta.Metadata) (*catalog.UploadRefs, *problem.Problem) {
	refs, err := s.deps.People.ResolveUploadRefs(c.Request.Context(), org, m.HierarchyID, m.HierarchyCode, m.AgentCode)
	switch {
	case errors.Is(err, catalog.ErrUnknownHierarchy):
		return nil, sentence(uploadmeta.SentenceHierarchy)
	case err != nil:
		return nil, s.internal(c, err)
	}
	return &refs, nil
}
