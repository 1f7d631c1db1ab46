package api

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// patternReader yields n bytes of a repeating pattern without holding them.
type patternReader struct{ left int64 }

func (p *patternReader) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	for i := range b {
		b[i] = byte(i*7 + 13)
	}
	p.left -= int64(len(b))
	return len(b), nil
}

// streamUpload sends a multipart upload of size bytes through real HTTP,
// generating the file as it goes.
func streamUpload(t testing.TB, url, token, fileName string, size int64) (int, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mf, _ := mw.CreateFormField("metadata")
		fmt.Fprintf(mf, `{"FileName":%q,"UploadType":"Audio"}`, fileName)
		fw, _ := mw.CreateFormFile("file", fileName)
		_, err := io.Copy(fw, &patternReader{left: size})
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", url+"/Media/Upload", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// heapWatcher samples the heap in use while something runs.
type heapWatcher struct {
	stop     chan struct{}
	done     sync.WaitGroup
	peak     atomic.Uint64
	baseline uint64
}

func watchHeap() *heapWatcher {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	h := &heapWatcher{stop: make(chan struct{}), baseline: ms.HeapInuse}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-h.stop:
				return
			case <-tick.C:
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > h.peak.Load() {
					h.peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	return h
}

// growth stops the watcher and returns the peak heap growth in bytes.
func (h *heapWatcher) growth() int64 {
	close(h.stop)
	h.done.Wait()
	return int64(h.peak.Load()) - int64(h.baseline)
}

// A 512 MiB upload through the real HTTP stack: the heap must not grow
// with the file (the contract's streaming promise). The figure is logged.
func TestUploadStreamsWithFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 512 MiB; skipped with -short")
	}
	e := newTestEnv(t, Options{MaxUploadBytes: 1 << 30})
	tok := e.token(t)
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	const size = 512 << 20
	watch := watchHeap()
	start := time.Now()
	code, body := streamUpload(t, srv.URL, tok, "big.wav", size)
	elapsed := time.Since(start)
	growth := watch.growth()
	if code != 200 {
		t.Fatalf("upload: %d %s", code, body)
	}
	var res map[string]any
	json.Unmarshal([]byte(body), &res)
	if res["fileSizeKb"] != float64(size/1024) {
		t.Fatalf("result %v", res)
	}
	t.Logf("512 MiB upload: peak heap growth %.1f MiB, %.0f MiB/s", float64(growth)/(1<<20), 512/elapsed.Seconds())
	if growth > 64<<20 {
		t.Fatalf("peak heap grew by %d MiB during a 512 MiB upload (limit 64 MiB)", growth>>20)
	}
}

// BenchmarkSmallChatUploads: POST /TextMedia/Upload of a small chat through
// the real HTTP stack (multipart, auth, parse, stage, catalog insert),
// beside the baseline of an authenticated request that does nothing.
func BenchmarkSmallChatUploads(b *testing.B) {
	conv := `{"messages":[{"participant":"Agent","text":"Thank you for calling, how can I help?"},` +
		`{"participant":"Customer","text":"I was charged twice for my order."},` +
		`{"participant":"Agent","text":"I am sorry about that, let me check."}]}`
	for _, parallel := range []bool{false, true} {
		mode := "serial"
		if parallel {
			mode = "parallel"
		}
		run := func(b *testing.B, op func(tb testing.TB, url, tok string)) {
			e := newTestEnv(b, Options{})
			tok := e.token(b)
			srv := httptest.NewServer(e.srv)
			defer srv.Close()
			b.ResetTimer()
			if parallel {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						op(b, srv.URL, tok)
					}
				})
			} else {
				for b.Loop() {
					op(b, srv.URL, tok)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		}
		b.Run("textmedia-"+mode, func(b *testing.B) {
			run(b, func(tb testing.TB, url, tok string) {
				body, ct := multipartBody(tb, formPart{name: "metadata", content: `{}`}, formPart{name: "file", fileName: "c.json", content: conv})
				req, _ := http.NewRequest("POST", url+"/TextMedia/Upload", body)
				req.Header.Set("Content-Type", ct)
				req.Header.Set("Authorization", "Bearer "+tok)
				mustDo(tb, req, 200)
			})
		})
		b.Run("baseline-authenticated-noop-"+mode, func(b *testing.B) {
			run(b, func(tb testing.TB, url, tok string) {
				req, _ := http.NewRequest("GET", url+"/Roles/All", nil)
				req.Header.Set("Authorization", "Bearer "+tok)
				mustDo(tb, req, 200)
			})
		})
	}
}

func mustDo(tb testing.TB, req *http.Request, status int) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		tb.Fatalf("%s %s: %d", req.Method, req.URL.Path, resp.StatusCode)
	}
}
