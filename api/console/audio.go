package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// Originals reads uploads' stored originals (blob.Bucket).
type Originals interface {
	Stat(ctx context.Context, key string) (blob.ObjectInfo, error)
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
}

// audioTypes are the media types of the call formats (CONTRACT §3).
var audioTypes = map[string]string{".wav": "audio/wav", ".mp3": "audio/mpeg", ".mp4": "audio/mp4", ".m4a": "audio/mp4",
	".ogg": "audio/ogg", ".opus": "audio/ogg"}

// hasAudio tells whether a conversation's recording can be played.
func hasAudio(it catalog.Interaction) bool {
	_, known := audioTypes[strings.ToLower(path.Ext(it.FileName))]
	return it.MediaType == catalog.MediaAudio && it.StagedKey != nil && known
}

// audio serves a call's recording with range requests (net/http's
// ServeContent answers Range, If-Range and HEAD), so that the player
// seeks without downloading the whole file.
func (c *Console) audio(ctx *gin.Context) {
	v := viewerFrom(ctx)
	it, ok := c.visible(ctx, v)
	if !ok {
		return
	}
	if !hasAudio(it) {
		c.notFound(ctx, v)
		return
	}
	rc := ctx.Request.Context()
	info, err := c.Originals.Stat(rc, *it.StagedKey)
	if errors.Is(err, blob.ErrNotFound) { // not kept (the organization's privacy settings)
		c.notFound(ctx, v)
		return
	}
	if err != nil {
		c.failed(ctx, err)
		return
	}
	ctx.Header("Content-Type", audioTypes[strings.ToLower(path.Ext(it.FileName))])
	ctx.Header("Cache-Control", "private, max-age=300")
	http.ServeContent(ctx.Writer, ctx.Request, "", info.Modified, &objectReader{ctx: rc, store: c.Originals, key: *it.StagedKey, size: info.Size})
}

// objectReader is a stored object as an io.ReadSeeker: each read after a
// seek opens a range from there to the end.
type objectReader struct {
	ctx    context.Context
	store  Originals
	key    string
	size   int64
	offset int64
	body   io.ReadCloser
}

func (o *objectReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += o.offset
	case io.SeekEnd:
		offset += o.size
	}
	if offset < 0 {
		return 0, errors.New("seek before the start")
	}
	if offset != o.offset && o.body != nil {
		o.body.Close()
		o.body = nil
	}
	o.offset = offset
	return offset, nil
}

func (o *objectReader) Read(p []byte) (int, error) {
	if o.offset >= o.size {
		return 0, io.EOF
	}
	if o.body == nil {
		body, err := o.store.GetRange(o.ctx, o.key, o.offset, -1)
		if err != nil {
			return 0, err
		}
		o.body = body
	}
	n, err := o.body.Read(p)
	o.offset += int64(n)
	return n, err
}
