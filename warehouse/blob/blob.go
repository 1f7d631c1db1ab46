// Package blob is Earshot's object storage: uploads, and the durable copy of
// the Parquet lake. A Bucket is opened from a URL: file://DIR (a local
// directory, the default) or gs://BUCKET/PREFIX (Google Cloud Storage).
//
// Keys are '/'-separated, relative and clean: no empty, "." or ".."
// segments, no leading '/', no backslash or NUL. Writes are atomic: a
// reader sees the whole object or none, and a write whose input fails
// midway leaves nothing behind.
package blob

import (
	"context"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"
)

// Bucket is one object store (or a prefix of one).
type Bucket interface {
	// Put streams r to key. With PutOptions.IfAbsent the write fails with
	// ErrExists when key exists already, even under concurrent writers.
	Put(ctx context.Context, key string, r io.Reader, opts PutOptions) (ObjectInfo, error)
	// Get opens key for reading; ErrNotFound when it does not exist.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// GetRange opens length bytes of key from offset (to its end when
	// length is negative); ErrNotFound when it does not exist.
	GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Stat describes key; ErrNotFound when it does not exist.
	Stat(ctx context.Context, key string) (ObjectInfo, error)
	// List yields the objects whose key starts with prefix, in key order.
	List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error]
	// Delete removes key; ErrNotFound when it does not exist.
	Delete(ctx context.Context, key string) error
	// Ping tells whether the store answers (for /readyz).
	Ping(ctx context.Context) error
	// Close releases the store's resources.
	Close() error
}

// PutOptions modify a Put.
type PutOptions struct {
	IfAbsent    bool   // create only: fail with ErrExists when the key exists
	ContentType string // optional media type recorded with the object
}

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	Key      string
	Size     int64
	Modified time.Time
}

// Open opens the bucket a URL names: file://DIR or gs://BUCKET[/PREFIX].
func Open(ctx context.Context, rawURL string) (Bucket, error) {
	switch {
	case strings.HasPrefix(rawURL, "file://"):
		return OpenLocal(strings.TrimPrefix(rawURL, "file://"))
	case strings.HasPrefix(rawURL, "gs://"):
		bucket, prefix, _ := strings.Cut(strings.TrimPrefix(rawURL, "gs://"), "/")
		return OpenGCS(ctx, bucket, prefix)
	default:
		return nil, fmt.Errorf("bucket URL %q: want file://DIR or gs://BUCKET/PREFIX", rawURL)
	}
}

// ValidKey checks a key against the rules of the package comment.
func ValidKey(key string) error {
	if key == "" || len(key) > 1024 {
		return fmt.Errorf("%w: %q: must be 1 to 1024 bytes", ErrInvalidKey, key)
	}
	if strings.ContainsAny(key, "\\\x00") {
		return fmt.Errorf("%w: %q: no backslash or NUL allowed", ErrInvalidKey, key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: %q: empty, '.' or '..' segment", ErrInvalidKey, key)
		}
	}
	return nil
}

// validPrefix checks a List prefix: "" (everything) or a key, optionally
// ending in '/'.
func validPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return ValidKey(strings.TrimSuffix(prefix, "/"))
}

// contextReader stops a copy as soon as ctx is done, so an abandoned upload
// does not go on writing.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
