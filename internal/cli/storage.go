package cli

import (
	"context"
	"os"

	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
)

// storage is what every command working on Earshot's data opens: the
// catalog, the lake engine and reader over the lake's local directory, and
// the bucket.
type storage struct {
	cat    *catalog.Catalog
	lake   lakeParts
	bucket blob.Bucket
}

// openStorage opens the catalog, the lake and the bucket. When the lake's
// directory is a cache of a remote bucket, the engine fetches the files
// other processes committed as queries name them.
func openStorage(ctx context.Context, cfg *Config) (*storage, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, err
	}
	cat, err := OpenCatalog(ctx, cfg)
	if err != nil {
		return nil, err
	}
	lk, err := openLake(ctx, cfg, cat)
	if err != nil {
		cat.Close()
		return nil, err
	}
	bucket, err := blob.Open(ctx, cfg.BucketURL())
	if err != nil {
		lk.engine.Close()
		cat.Close()
		return nil, err
	}
	if _, cached := LakeRoot(cfg); cached {
		lk.engine.FetchMissingFrom(bucket)
	}
	return &storage{cat: cat, lake: lk, bucket: bucket}, nil
}

func (s *storage) close() {
	s.bucket.Close()
	s.lake.engine.Close()
	s.cat.Close()
}
