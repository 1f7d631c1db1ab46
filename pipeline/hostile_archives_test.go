package pipeline

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/earshot/earshot/pipeline/archive"
)

// hostileEntry is one entry of a hostile archive: a regular file unless
// typeflag says otherwise.
type hostileEntry struct {
	name     string
	typeflag byte
	body     string
}

const goodChat = `{"messages":[{"participant":"Agent","text":"Hello"},{"participant":"Customer","text":"Hi"}]}`

func hostileTar(t *testing.T, entries []hostileEntry, gz bool) []byte {
	var buf bytes.Buffer
	var zw *gzip.Writer
	var w *tar.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typeflag, Mode: 0o644, Size: int64(len(e.body)), Format: tar.FormatGNU}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size, h.Linkname = 0, "/etc/passwd"
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	w.Close()
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

func hostileZip(t *testing.T, entries []hostileEntry) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		fw, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Deflate, NonUTF8: !utf8.ValidString(e.name)})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(e.body))
	}
	w.Close()
	return buf.Bytes()
}

// Hostile archives, in one table, through the real chat processor: each
// holds one good chat beside its hostile entry (or is hostile whole).
// TestDamagedAndEmptyArchives has every way of cutting a tar short. The
// good chat is kept, the hostile entry is skipped or fails alone with its
// reason, nothing escapes the archive, and every name kept is clean,
// relative, valid UTF-8.
func TestHostileArchives(t *testing.T) {
	zeros := strings.Repeat("\x00", 32<<20)
	good := hostileEntry{name: "ok/good.json", body: goodChat}
	many := []hostileEntry{good}
	for i := range 60 {
		many = append(many, hostileEntry{name: fmt.Sprintf("many/%02d.json", i), body: goodChat})
	}
	twoChats := hostileTar(t, []hostileEntry{good, {name: "ok/second.json", body: goodChat}}, false)
	twoZip := hostileZip(t, []hostileEntry{good, {name: "ok/second.json", body: goodChat}})
	limits := archive.Limits{MaxEntries: 50, MaxEntryBytes: 1 << 20, MaxTotalBytes: 64 << 20, MaxRatio: 200}
	for _, c := range []struct {
		name   string
		file   string
		data   []byte
		kept   int    // good chats kept; -1: the archive fails whole
		reason string // in the archive's or a chat's failures, or the archive's error
	}{
		{"tar zip-slip", "a.tar", hostileTar(t, []hostileEntry{good, {name: "../../etc/cron.d/x", body: goodChat}}, false), 1, "escapes the archive"},
		{"tar nested zip-slip", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/../../x.json", body: goodChat}}, false), 1, "escapes the archive"},
		{"zip zip-slip", "a.zip", hostileZip(t, []hostileEntry{good, {name: "../x.json", body: goodChat}}), 1, "escapes the archive"},
		{"tar absolute path", "a.tar", hostileTar(t, []hostileEntry{good, {name: "/etc/x.json", body: goodChat}}, false), 1, "absolute path"},
		{"zip absolute path", "a.zip", hostileZip(t, []hostileEntry{good, {name: "/etc/x.json", body: goodChat}}), 1, "absolute path"},
		{"zip drive letter", "a.zip", hostileZip(t, []hostileEntry{good, {name: "C:\\x.json", body: goodChat}}), 1, "absolute path"},
		{"symbolic link", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/link.json", typeflag: tar.TypeSymlink}}, false), 1, "symbolic link"},
		{"hard link", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/hard.json", typeflag: tar.TypeLink}}, false), 1, "hard link"},
		{"character device", "a.tar", hostileTar(t, []hostileEntry{good, {name: "dev/tty", typeflag: tar.TypeChar}}, false), 1, "device"},
		{"block device", "a.tar", hostileTar(t, []hostileEntry{good, {name: "dev/sda", typeflag: tar.TypeBlock}}, false), 1, "device"},
		{"fifo", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/pipe", typeflag: tar.TypeFifo}}, false), 1, "fifo"},
		{"tar non-UTF-8 name", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/caf\xe9.json", body: goodChat}}, false), 2, ""},
		{"zip non-UTF-8 name", "a.zip", hostileZip(t, []hostileEntry{good, {name: "ok/\xff\xfe.json", body: goodChat}}), 2, ""},
		{"a NUL in a name", "a.zip", hostileZip(t, []hostileEntry{good, {name: "ok/a\x00b.json", body: goodChat}}), 1, "a NUL byte in its name"},
		{"the same name twice", "a.tar", hostileTar(t, []hostileEntry{good, good}, false), 1, "a second entry with this name"},
		{"backslashes", "a.zip", hostileZip(t, []hostileEntry{good, {name: "ok\\win\\b.json", body: goodChat}}), 2, ""},
		{"zip bomb", "a.zip", hostileZip(t, []hostileEntry{good, {name: "ok/bomb.json", body: zeros}}), 1, "ratio"},
		{"gzip tar bomb", "a.tar.gz", hostileTar(t, []hostileEntry{good, {name: "ok/bomb.json", body: zeros}}, true), 1, "compression ratio"},
		{"entry over the size limit", "a.tar", hostileTar(t, []hostileEntry{good, {name: "ok/big.json", body: strings.Repeat("x", 2<<20)}}, false), 1, "larger than"},
		{"too many entries", "a.tar", hostileTar(t, many, false), -1, "more than 50"},
		{"tar cut short", "a.tar", twoChats[:len(twoChats)-1500], 1, "damaged after its first 1 files"},
		{"zip cut short", "a.zip", twoZip[:len(twoZip)-40], -1, "cannot be processed"},
		{"not an archive", "a.tar", []byte(strings.Repeat("not a tar ", 100)), -1, "cannot be processed"},
		{"a tar named .zip", "a.zip", hostileTar(t, []hostileEntry{good}, false), -1, "cannot be processed"},
		{"empty", "a.zip", nil, -1, "holds no files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Chats{Limits: limits}.Process(context.Background(), upload(c.file), "run", opener(c.data), nil)
			if c.kept < 0 {
				if err == nil || !strings.Contains(err.Error(), c.reason) {
					t.Fatalf("want the archive to fail (%q): %v", c.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var reasons []string
			reasons = append(reasons, res.Outcome.Failures...)
			for _, ch := range res.Outcome.Children {
				for _, f := range ch.ProcessFailures {
					reasons = append(reasons, f.Message)
				}
				prefix := "a." + strings.SplitN(c.file, ".", 2)[1] + "/"
				inside := strings.TrimPrefix(ch.FileName, prefix)
				if !utf8.ValidString(ch.FileName) || !strings.HasPrefix(ch.FileName, prefix) || strings.HasPrefix(inside, "/") ||
					strings.Contains("/"+inside+"/", "/../") || strings.ContainsAny(inside, "\\\x00") {
					t.Errorf("kept an unsafe name %q", ch.FileName)
				}
			}
			if len(res.Batch.Conversations) != c.kept {
				t.Errorf("%d chats kept, want %d (%v)", len(res.Batch.Conversations), c.kept, reasons)
			}
			all := strings.Join(reasons, "; ")
			if c.reason != "" && !strings.Contains(all, c.reason) || c.reason == "" && all != "" {
				t.Errorf("failures %q, want %q", all, c.reason)
			}
			for _, row := range res.Batch.Conversations {
				if !utf8.ValidString(row.FileName) {
					t.Errorf("a lake row's file name is not UTF-8: %q", row.FileName)
				}
			}
		})
	}
}
