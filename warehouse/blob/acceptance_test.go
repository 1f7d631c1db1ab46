package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"google.golang.org/api/option"
)

// One contract, every driver: the suite below runs against the local
// directory driver and against the GCS driver talking to fake-gcs-server.
func TestAcceptanceLocal(t *testing.T) {
	b, err := OpenLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runAcceptance(t, b)
}

func TestAcceptanceGCS(t *testing.T) {
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{Scheme: "http", Host: "127.0.0.1"})
	if err != nil {
		t.Fatalf("start fake-gcs-server: %v", err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "earshot-test"})
	b, err := OpenGCS(context.Background(), "earshot-test", "tenant-root",
		option.WithEndpoint(srv.URL()+"/storage/v1/"), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	runAcceptance(t, b)

	// The prefix really scopes the objects: they sit under tenant-root/ in the bucket.
	if _, err := srv.GetObject("earshot-test", "tenant-root/a/b.txt"); err != nil {
		t.Errorf("object not stored under the prefix: %v", err)
	}
}

func runAcceptance(t *testing.T, b Bucket) {
	ctx := context.Background()
	put := func(t *testing.T, key, body string, opts PutOptions) (ObjectInfo, error) {
		t.Helper()
		return b.Put(ctx, key, bytes.NewBufferString(body), opts)
	}
	read := func(t *testing.T, key string) string {
		t.Helper()
		r, err := b.Get(ctx, key)
		if err != nil {
			t.Fatalf("get %s: %v", key, err)
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("read %s: %v", key, err)
		}
		return string(data)
	}

	t.Run("ping", func(t *testing.T) {
		if err := b.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("put get stat overwrite", func(t *testing.T) {
		info, err := put(t, "a/b.txt", "hello", PutOptions{ContentType: "text/plain"})
		if err != nil || info.Size != 5 || info.Key != "a/b.txt" {
			t.Fatalf("put = %+v, %v", info, err)
		}
		if got := read(t, "a/b.txt"); got != "hello" {
			t.Fatalf("get = %q", got)
		}
		if _, err := put(t, "a/b.txt", "hello again", PutOptions{}); err != nil {
			t.Fatalf("overwrite: %v", err)
		}
		if got := read(t, "a/b.txt"); got != "hello again" {
			t.Fatalf("after overwrite = %q", got)
		}
		st, err := b.Stat(ctx, "a/b.txt")
		if err != nil || st.Size != 11 || st.Modified.IsZero() {
			t.Fatalf("stat = %+v, %v", st, err)
		}
	})

	t.Run("streams a large object", func(t *testing.T) {
		data := make([]byte, 20<<20+123) // over the GCS writer's 16 MiB chunk
		rand.Read(data)
		info, err := b.Put(ctx, "big/object.bin", bytes.NewReader(data), PutOptions{})
		if err != nil || info.Size != int64(len(data)) {
			t.Fatalf("put big = %+v, %v", info, err)
		}
		if got := read(t, "big/object.bin"); got != string(data) {
			t.Fatal("big object came back different")
		}
		// in the small pieces a multipart part hands over
		small := data[:3<<20+17]
		if info, err := b.Put(ctx, "big/pieces.bin", iotest.HalfReader(bytes.NewReader(small)), PutOptions{}); err != nil || info.Size != int64(len(small)) {
			t.Fatalf("put in pieces = %+v, %v", info, err)
		}
		if got := read(t, "big/pieces.bin"); got != string(small) {
			t.Fatal("an object put in small pieces came back different")
		}
	})

	t.Run("ranges", func(t *testing.T) {
		if _, err := put(t, "r/digits.txt", "0123456789", PutOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			offset, length int64
			want           string
		}{{0, 3, "012"}, {4, 2, "45"}, {7, -1, "789"}, {8, 10, "89"}} {
			r, err := b.GetRange(ctx, "r/digits.txt", tc.offset, tc.length)
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(r)
			r.Close()
			if err != nil || string(data) != tc.want {
				t.Errorf("range %d+%d = %q, %v; want %q", tc.offset, tc.length, data, err, tc.want)
			}
		}
		if _, err := b.GetRange(ctx, "no/such", 0, 1); !errors.Is(err, ErrNotFound) {
			t.Errorf("range of a missing key: %v", err)
		}
	})

	t.Run("missing keys", func(t *testing.T) {
		if _, err := b.Get(ctx, "no/such"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get: %v", err)
		}
		if _, err := b.Stat(ctx, "no/such"); !errors.Is(err, ErrNotFound) {
			t.Errorf("stat: %v", err)
		}
		if err := b.Delete(ctx, "no/such"); !errors.Is(err, ErrNotFound) {
			t.Errorf("delete: %v", err)
		}
		// A "directory" is not an object.
		if _, err := b.Get(ctx, "a"); !errors.Is(err, ErrNotFound) {
			t.Errorf("get dir: %v", err)
		}
	})

	t.Run("invalid keys", func(t *testing.T) {
		for _, key := range []string{"", "/abs", "a//b", "../up", "a/../../b", "a/./b", "a\\b", "nul\x00", "trailing/"} {
			if _, err := put(t, key, "x", PutOptions{}); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("put %q: %v", key, err)
			}
			if _, err := b.Get(ctx, key); !errors.Is(err, ErrInvalidKey) {
				t.Errorf("get %q: %v", key, err)
			}
		}
	})

	t.Run("create only", func(t *testing.T) {
		if _, err := put(t, "once/key", "first", PutOptions{IfAbsent: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := put(t, "once/key", "second", PutOptions{IfAbsent: true}); !errors.Is(err, ErrExists) {
			t.Fatalf("second create-only: %v", err)
		}
		if got := read(t, "once/key"); got != "first" {
			t.Fatalf("create-only overwrote: %q", got)
		}
	})

	t.Run("create only under concurrency: exactly one wins", func(t *testing.T) {
		const writers = 8
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = b.Put(ctx, "race/key", bytes.NewBufferString(fmt.Sprint("writer ", i)), PutOptions{IfAbsent: true})
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, ErrExists):
				t.Errorf("unexpected error: %v", err)
			}
		}
		if wins != 1 {
			t.Fatalf("%d writers won, want exactly 1", wins)
		}
	})

	t.Run("failed input leaves nothing", func(t *testing.T) {
		r := io.MultiReader(bytes.NewBufferString("partial"), errReader{})
		if _, err := b.Put(ctx, "cut/off", r, PutOptions{IfAbsent: true}); err == nil {
			t.Fatal("put with a failing reader succeeded")
		}
		if _, err := b.Stat(ctx, "cut/off"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a cut-off upload left an object: %v", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := b.Put(cctx, "cut/cancelled", bytes.NewBufferString("x"), PutOptions{}); err == nil {
			t.Fatal("put with a cancelled context succeeded")
		}
		if _, err := b.Stat(ctx, "cut/cancelled"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a cancelled upload left an object: %v", err)
		}
	})

	t.Run("list by prefix in key order", func(t *testing.T) {
		for _, k := range []string{"l/x/2", "l/x/1", "l/x-y", "l/y/3", "l/xz"} {
			if _, err := put(t, k, k, PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		cases := map[string][]string{
			"l/x/": {"l/x/1", "l/x/2"},
			"l/x":  {"l/x-y", "l/x/1", "l/x/2", "l/xz"},
			"l/":   {"l/x-y", "l/x/1", "l/x/2", "l/xz", "l/y/3"},
			"l/q":  nil,
			"nope": nil,
		}
		for prefix, want := range cases {
			var got []string
			for o, err := range b.List(ctx, prefix) {
				if err != nil {
					t.Fatalf("list %q: %v", prefix, err)
				}
				if o.Size != int64(len(o.Key)) {
					t.Errorf("list %q: %s size %d", prefix, o.Key, o.Size)
				}
				got = append(got, o.Key)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("list %q = %v, want %v", prefix, got, want)
			}
		}
		// Stopping early is allowed.
		for range b.List(ctx, "l/") {
			break
		}
	})

	t.Run("delete", func(t *testing.T) {
		if _, err := put(t, "d/e/f", "x", PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := b.Delete(ctx, "d/e/f"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Stat(ctx, "d/e/f"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("deleted object still there: %v", err)
		}
		for o := range b.List(ctx, "d/") {
			t.Fatalf("list after delete found %s", o.Key)
		}
		// The key is free again for a create-only write.
		if _, err := put(t, "d/e/f", "y", PutOptions{IfAbsent: true}); err != nil {
			t.Fatal(err)
		}
	})
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset by client") }
