package blob

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Local is a Bucket in a local directory. Objects are written to a temporary
// file under DIR/.tmp and then linked (create-only) or renamed into place, so
// readers never see a partial object.
type Local struct {
	root string
}

const localTempDir = ".tmp"

// OpenLocal opens (creating if needed) a directory bucket.
func OpenLocal(dir string) (*Local, error) {
	if dir == "" {
		return nil, errors.New("local bucket: empty directory")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(abs, localTempDir), 0o750); err != nil {
		return nil, fmt.Errorf("local bucket %s: %w", abs, err)
	}
	return &Local{root: abs}, nil
}

func (l *Local) path(key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	if key == localTempDir || strings.HasPrefix(key, localTempDir+"/") {
		return "", fmt.Errorf("%w: %q is reserved", ErrInvalidKey, key)
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

func (l *Local) Put(ctx context.Context, key string, r io.Reader, opts PutOptions) (ObjectInfo, error) {
	final, err := l.path(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	if opts.IfAbsent {
		// Cheap early answer; the link below is what really decides.
		if _, err := os.Lstat(final); err == nil {
			return ObjectInfo{}, fmt.Errorf("%s: %w", key, ErrExists)
		}
	}
	tmp, err := os.CreateTemp(filepath.Join(l.root, localTempDir), "put-*")
	if err != nil {
		return ObjectInfo{}, err
	}
	defer os.Remove(tmp.Name()) // after a link or a failure; a renamed file is gone already
	err = copyInBulk(tmp, contextReader{ctx, r})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	// A concurrent Delete may remove the (empty) directory between MkdirAll
	// and the link or rename: try again a few times.
	for attempt := 0; ; attempt++ {
		err = l.place(tmp.Name(), final, opts.IfAbsent)
		if !errors.Is(err, fs.ErrNotExist) || attempt == 3 {
			break
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return ObjectInfo{}, fmt.Errorf("%s: %w", key, ErrExists)
	}
	if err != nil {
		return ObjectInfo{}, fmt.Errorf("put %s: %w", key, err)
	}
	return l.Stat(ctx, key)
}

// writeSize is how much Put gathers before each write to its file. A
// write system call costs about as much as copying many kilobytes, and an
// upload's reader hands over a few kilobytes at a time (a multipart part's
// buffer), which written as they come cost more than the copying.
const writeSize = 256 << 10

var writeBuffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, writeSize) }}

// copyInBulk copies r to f in writes of writeSize bytes.
func copyInBulk(f *os.File, r io.Reader) error {
	w := writeBuffers.Get().(*bufio.Writer)
	defer func() {
		w.Reset(nil)
		writeBuffers.Put(w)
	}()
	// Not f itself: its ReadFrom would copy in small pieces of its own.
	w.Reset(struct{ io.Writer }{f})
	if _, err := io.Copy(w, r); err != nil {
		return err
	}
	return w.Flush()
}

// place moves a finished temporary file to its key. Create-only uses
// link(2), which fails when the target exists: atomic under concurrency.
func (l *Local) place(tmp, final string, ifAbsent bool) error {
	if err := os.MkdirAll(filepath.Dir(final), 0o750); err != nil {
		return err
	}
	if ifAbsent {
		return os.Link(tmp, final)
	}
	return os.Rename(tmp, final)
}

func (l *Local) Get(_ context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return f, nil
}

func (l *Local) GetRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	rc, err := l.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	f := rc.(*os.File)
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	if length < 0 {
		return f, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(f, length), f}, nil
}

func (l *Local) Stat(_ context.Context, key string) (ObjectInfo, error) {
	p, err := l.path(key)
	if err != nil {
		return ObjectInfo{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()) {
		return ObjectInfo{}, fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err != nil {
		return ObjectInfo{}, err
	}
	return ObjectInfo{Key: key, Size: st.Size(), Modified: st.ModTime().UTC()}, nil
}

func (l *Local) List(ctx context.Context, prefix string) iter.Seq2[ObjectInfo, error] {
	return func(yield func(ObjectInfo, error) bool) {
		if err := validPrefix(prefix); err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		// Walk only the deepest directory the prefix names fully.
		start := l.root
		if i := strings.LastIndex(prefix, "/"); i >= 0 {
			start = filepath.Join(l.root, filepath.FromSlash(prefix[:i]))
		}
		var found []ObjectInfo
		err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, _ := filepath.Rel(l.root, p)
			key := filepath.ToSlash(rel)
			if d.IsDir() {
				if key == localTempDir {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasPrefix(key, prefix) || !d.Type().IsRegular() {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			found = append(found, ObjectInfo{Key: key, Size: info.Size(), Modified: info.ModTime().UTC()})
			return nil
		})
		if err != nil {
			yield(ObjectInfo{}, err)
			return
		}
		// Directory walk order is not key order ("a/b" walks before "a-c").
		sort.Slice(found, func(i, j int) bool { return found[i].Key < found[j].Key })
		for _, o := range found {
			if !yield(o, nil) {
				return
			}
		}
	}
}

func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	} else if err != nil {
		return err
	}
	// Tidy the directories the object leaves empty; a failure is harmless.
	for dir := filepath.Dir(p); dir != l.root && strings.HasPrefix(dir, l.root); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil {
			break
		}
	}
	return nil
}

func (l *Local) Ping(context.Context) error {
	st, err := os.Stat(l.root)
	if err == nil && !st.IsDir() {
		err = fmt.Errorf("%s is not a directory", l.root)
	}
	return err
}

func (l *Local) Close() error { return nil }

// SweepTemp removes the temporary files of writes that never finished (a
// process killed mid-upload, an upload cut off at shutdown) untouched
// since before, and reports how many files and bytes it removed. A write
// in progress touches its file as it goes, so it is never swept.
func (l *Local) SweepTemp(before time.Time) (files int, bytes int64, err error) {
	dir := filepath.Join(l.root, localTempDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return files, bytes, err
		}
		files, bytes = files+1, bytes+info.Size()
	}
	return files, bytes, nil
}
