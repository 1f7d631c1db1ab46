package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// GCS is a Bucket in Google Cloud Storage, under an optional key prefix.
// Create-only writes use the generation precondition DoesNotExist, which the
// service enforces atomically.
type GCS struct {
	client *storage.Client
	bucket *storage.BucketHandle
	prefix string // "" or ends with '/'
}

// OpenGCS opens bucket under prefix. Credentials come from the environment
// (Application Default Credentials); STORAGE_EMULATOR_HOST points the client
// at an emulator. opts are passed to the client (tests use them to reach a
// fake server).
func OpenGCS(ctx context.Context, bucket, prefix string, opts ...option.ClientOption) (*GCS, error) {
	if bucket == "" {
		return nil, errors.New("gcs bucket: empty bucket name")
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := ValidKey(prefix); err != nil {
			return nil, fmt.Errorf("gcs prefix: %w", err)
		}
		prefix += "/"
	}
	// JSON reads: the XML read path is not what emulators (and some proxies) serve.
	client, err := storage.NewClient(ctx, append([]option.ClientOption{storage.WithJSONReads()}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("gcs client: %w", err)
	}
	return &GCS{client: client, bucket: client.Bucket(bucket), prefix: prefix}, nil
}

func (g *GCS) object(key string) (*storage.ObjectHandle, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	return g.bucket.Object(g.prefix + key), nil
}

func (g *GCS) Put(ctx context.Context, key string, r io.Reader, opts PutOptions) (ObjectInfo, error) {
	obj, err := g.object(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	if opts.IfAbsent {
		obj = obj.If(storage.Conditions{DoesNotExist: true})
	}
	// Cancelling the writer's context is how an upload is abandoned: the
	// object is then never created.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := obj.NewWriter(wctx)
	w.ContentType = opts.ContentType
	if _, err := io.Copy(w, contextReader{ctx, r}); err != nil {
		cancel()
		w.Close()
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		if isStatus(err, http.StatusPreconditionFailed) {
			return ObjectInfo{}, fmt.Errorf("%s: %w", key, ErrExists)
		}
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	a := w.Attrs()
	return ObjectInfo{Key: key, Size: a.Size, Modified: a.Updated.UTC()}, nil
}

func (g *GCS) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := g.object(key)
	if err != nil {
		return nil, err
	}
	r, err := obj.NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return r, err
}

func (g *GCS) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	obj, err := g.object(key)
	if err != nil {
		return nil, err
	}
	r, err := obj.NewRangeReader(ctx, offset, length)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return r, err
}

func (g *GCS) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	obj, err := g.object(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	a, err := obj.Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return ObjectInfo{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return ObjectInfo{}, err
	}
	return ObjectInfo{Key: key, Size: a.Size, Modified: a.Updated.UTC()}, nil
}

func (g *GCS) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		if err := validPrefix(prefix); err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		q := &storage.Query{Prefix: g.prefix + prefix}
		if err := q.SetAttrSelection([]string{"Name", "Size", "Updated"}); err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		it := g.bucket.Objects(ctx, q)
		for {
			a, err := it.Next()
			if errors.Is(err, iterator.Done) {
				return
			}
			if err != nil {
				yield(ObjectInfo{}, err)
				return
			}
			info := ObjectInfo{Key: strings.TrimPrefix(a.Name, g.prefix), Size: a.Size, Modified: a.Updated.UTC()}
			if !yield(info, nil) {
				return
			}
		}
	}
}

func (g *GCS) Delete(ctx context.Context, key string) error {
	obj, err := g.object(key)
	if err != nil {
		return err
	}
	err = obj.Delete(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return err
}

func (g *GCS) Ping(ctx context.Context) error {
	_, err := g.bucket.Attrs(ctx)
	return err
}

func (g *GCS) Close() error { return g.client.Close() }

func isStatus(err error, code int) bool {
	var gerr *googleapi.Error
	return errors.As(err, &gerr) && gerr.Code == code
}
