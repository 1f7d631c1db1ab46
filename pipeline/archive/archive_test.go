package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
)

type tarItem struct {
	name     string
	typeflag byte
	body     string
}

func buildTar(t testing.TB, items []tarItem, gz bool) []byte {
	var buf bytes.Buffer
	var w *tar.Writer
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(&buf)
		w = tar.NewWriter(zw)
	} else {
		w = tar.NewWriter(&buf)
	}
	for _, it := range items {
		h := &tar.Header{Name: it.name, Typeflag: it.typeflag, Mode: 0o644, Size: int64(len(it.body))}
		if it.typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Typeflag != tar.TypeReg {
			h.Size = 0
			h.Linkname = "/etc/passwd"
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			w.Write([]byte(it.body))
		}
	}
	w.Close()
	if zw != nil {
		zw.Close()
	}
	return buf.Bytes()
}

func buildZip(t testing.TB, files map[string]string, store bool) []byte {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		method := zip.Deflate
		if store {
			method = zip.Store
		}
		fw, err := w.CreateHeader(&zip.FileHeader{Name: n, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(files[n]))
	}
	w.Close()
	return buf.Bytes()
}

type collected struct {
	names   []string
	failed  map[string]string
	skipped []Skipped
}

func collect(t *testing.T, walk func(func(Entry) error) ([]Skipped, error)) (collected, error) {
	c := collected{failed: map[string]string{}}
	skipped, err := walk(func(e Entry) error {
		if e.Err != nil {
			c.failed[e.Name] = e.Err.Error()
		} else {
			c.names = append(c.names, fmt.Sprintf("%s=%d", e.Name, len(e.Data)))
		}
		return nil
	})
	c.skipped = skipped
	return c, err
}

func TestTar(t *testing.T) {
	items := []tarItem{
		{name: "chats/", typeflag: tar.TypeDir},
		{name: "chats/a.json", body: `{"messages":[]}`},
		{name: "chats/sub/b.txt", body: "Agent: hi"},
		{name: "../../etc/cron.d/evil", body: "x"},
		{name: "/abs/path.json", body: "x"},
		{name: "chats/link", typeflag: tar.TypeSymlink},
		{name: "chats/hard", typeflag: tar.TypeLink},
		{name: "dev/null", typeflag: tar.TypeChar},
		{name: "chats/empty.json", body: ""},
		{name: "chats/big.json", body: strings.Repeat("x", 2000)},
	}
	w := Walker{Limits: Limits{MaxEntries: 100, MaxEntryBytes: 1000, MaxTotalBytes: 1 << 20}}
	for _, gz := range []bool{false, true} {
		data := buildTar(t, items, gz)
		c, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) { return w.WalkTar(bytes.NewReader(data), fn) })
		if err != nil {
			t.Fatalf("gz=%v: %v", gz, err)
		}
		if got := strings.Join(c.names, " "); got != "chats/a.json=15 chats/sub/b.txt=9 chats/empty.json=0" {
			t.Errorf("gz=%v read %s", gz, got)
		}
		if !strings.Contains(c.failed["chats/big.json"], "larger than 1000 bytes") {
			t.Errorf("gz=%v: big entry: %v", gz, c.failed)
		}
		reasons := map[string]string{}
		for _, s := range c.skipped {
			reasons[s.Name] = s.Reason
		}
		for name, want := range map[string]string{
			"../../etc/cron.d/evil": "escapes", "/abs/path.json": "absolute", "chats/link": "symbolic link",
			"chats/hard": "hard link", "dev/null": "device",
		} {
			if !strings.Contains(reasons[name], want) {
				t.Errorf("gz=%v: %s skipped as %q, want %q", gz, name, reasons[name], want)
			}
		}
	}
}

func TestTarLimitsAndDamage(t *testing.T) {
	many := make([]tarItem, 0, 1001)
	for i := range 1001 {
		many = append(many, tarItem{name: fmt.Sprintf("e%d.json", i)})
	}
	w := Walker{Limits: Limits{MaxEntries: 1000, MaxEntryBytes: 1000, MaxTotalBytes: 3000}}
	if _, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return w.WalkTar(bytes.NewReader(buildTar(t, many, false)), fn)
	}); !errors.Is(err, ErrLimit) {
		t.Errorf("too many entries: %v", err)
	}
	total := []tarItem{{name: "a", body: strings.Repeat("a", 900)}, {name: "b", body: strings.Repeat("b", 900)},
		{name: "c", body: strings.Repeat("c", 900)}, {name: "d", body: strings.Repeat("d", 900)}}
	if _, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return w.WalkTar(bytes.NewReader(buildTar(t, total, false)), fn)
	}); !errors.Is(err, ErrLimit) {
		t.Errorf("over the total: %v", err)
	}
	good := buildTar(t, []tarItem{{name: "a.json", body: strings.Repeat("a", 800)}, {name: "b.json", body: "b"}}, false)
	if _, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return w.WalkTar(bytes.NewReader(good[:700]), fn)
	}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	gzBad := []byte{0x1f, 0x8b, 1, 2, 3}
	if _, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) { return w.WalkTar(bytes.NewReader(gzBad), fn) }); !errors.Is(err, ErrCorrupt) {
		t.Errorf("bad gzip: %v", err)
	}
}

func TestZip(t *testing.T) {
	files := map[string]string{
		"chats/a.json":        `{"messages":[]}`,
		"chats\\win\\b.txt":   "Agent: hi",
		"../evil.json":        "x",
		"chats/dir/":          "",
		"bomb.json":           strings.Repeat("0", 1<<20), // deflates ~1000:1
		"chats/ok-large.json": strings.Repeat("ab", 200),
	}
	w := Walker{Limits: Limits{MaxEntries: 100, MaxEntryBytes: 4 << 20, MaxTotalBytes: 64 << 20, MaxRatio: 100}}
	data := buildZip(t, files, false)
	c, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return w.WalkZip(bytes.NewReader(data), int64(len(data)), fn)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.names, " "); got != "chats/a.json=15 chats/ok-large.json=400 chats/win/b.txt=9" {
		t.Errorf("read %s", got)
	}
	if !strings.Contains(c.failed["bomb.json"], "ratio") {
		t.Errorf("zip bomb: %v", c.failed)
	}
	if len(c.skipped) != 1 || !strings.Contains(c.skipped[0].Reason, "escapes") {
		t.Errorf("skipped %v", c.skipped)
	}
	if _, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return w.WalkZip(bytes.NewReader(data[:len(data)/2]), int64(len(data)/2), fn)
	}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated zip: %v", err)
	}
	// A header that lies about its size is caught while reading.
	stored := buildZip(t, map[string]string{"x.json": strings.Repeat("y", 5000)}, true)
	tight := Walker{Limits: Limits{MaxEntries: 10, MaxEntryBytes: 1000, MaxTotalBytes: 1 << 20}}
	c, err = collect(t, func(fn func(Entry) error) ([]Skipped, error) {
		return tight.WalkZip(bytes.NewReader(stored), int64(len(stored)), fn)
	})
	if err != nil || !strings.Contains(c.failed["x.json"], "larger than") {
		t.Errorf("entry over the size limit: %v %v", err, c.failed)
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]Kind{"a.tar": Tar, "A.TAR": Tar, "a.tar.gz": Tar, "a.tgz": Tar, "a.zip": Zip} {
		if got, ok := KindOf(name); !ok || got != want {
			t.Errorf("KindOf(%s) = %v", name, got)
		}
	}
	if _, ok := KindOf("a.wav"); ok {
		t.Error("a.wav is an archive")
	}
}

// FuzzWalk: arbitrary bytes as tar and as zip: nothing panics, every name
// handed out is clean and relative, and the limits hold.
func FuzzWalk(f *testing.F) {
	f.Add(buildTar(f, []tarItem{{name: "a/b.json", body: "Agent: x"}, {name: "../c", body: "y"}}, false), false)
	f.Add(buildTar(f, []tarItem{{name: "a.json", body: "Agent: x"}}, true), false)
	f.Add(buildZip(f, map[string]string{"a.json": "Agent: x", "../b": "y"}, false), true)
	lim := Limits{MaxEntries: 50, MaxEntryBytes: 1 << 16, MaxTotalBytes: 1 << 20, MaxRatio: 100}
	f.Fuzz(func(t *testing.T, data []byte, isZip bool) {
		w := Walker{Limits: lim}
		entries := 0
		fn := func(e Entry) error {
			entries++
			if strings.HasPrefix(e.Name, "/") || strings.Contains("/"+e.Name+"/", "/../") || strings.Contains(e.Name, "\\") {
				t.Fatalf("unsafe name %q", e.Name)
			}
			if int64(len(e.Data)) > lim.MaxEntryBytes {
				t.Fatalf("entry of %d bytes", len(e.Data))
			}
			return nil
		}
		if isZip {
			w.WalkZip(bytes.NewReader(data), int64(len(data)), fn)
		} else {
			w.WalkTar(bytes.NewReader(data), fn)
		}
		if entries > lim.MaxEntries {
			t.Fatalf("%d entries", entries)
		}
	})
}

// A gzip-compressed tar that expands past the ratio (zeros) stops being
// read there and fails as damaged, whatever its entries' sizes.
func TestGzipBomb(t *testing.T) {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w := tar.NewWriter(zw)
	zeros := make([]byte, 4<<20)
	for i := range 16 {
		w.WriteHeader(&tar.Header{Name: fmt.Sprintf("z/%02d.json", i), Mode: 0o644, Size: int64(len(zeros)), Typeflag: tar.TypeReg})
		w.Write(zeros)
	}
	w.Close()
	zw.Close()
	if ratio := float64(16*len(zeros)) / float64(buf.Len()); ratio < 400 {
		t.Fatalf("the bomb expands only %.0f:1", ratio)
	}
	var read int64
	_, err := Walker{Limits: DefaultLimits}.WalkTar(bytes.NewReader(buf.Bytes()), func(e Entry) error {
		read += int64(len(e.Data))
		return nil
	})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "compression ratio over 200:1") {
		t.Fatalf("err %v", err)
	}
	if limit := int64(buf.Len()+64<<10) * 200; read > limit {
		t.Errorf("read %d bytes of entries, past the ratio's %d", read, limit)
	}

	// An ordinary gzip-compressed archive of chats is well under it.
	items := []tarItem{}
	for i := range 500 {
		items = append(items, tarItem{name: fmt.Sprintf("c/%03d.json", i), typeflag: tar.TypeReg,
			body: `{"messages":[{"participant":"Agent","text":"Thanks for calling, how can I help?"},{"participant":"Customer","text":"My card was declined."}]}`})
	}
	n := 0
	if _, err := (Walker{Limits: DefaultLimits}).WalkTar(bytes.NewReader(buildTar(t, items, true)), func(Entry) error { n++; return nil }); err != nil || n != 500 {
		t.Fatalf("ordinary archive: %d entries, %v", n, err)
	}
}

// Archives are read whole: the chats of a second tar after the first's
// end-of-archive marker (two tars one after the other, or two gzip members
// of one tar each) are read too; zeros after the last marker are padding.
func TestConcatenatedTars(t *testing.T) {
	t.Parallel()
	first := buildTar(t, []tarItem{{name: "a.json", body: "a"}, {name: "b.json", body: "bb"}}, false)
	second := buildTar(t, []tarItem{{name: "c.json", body: "ccc"}}, false)
	third := buildTar(t, []tarItem{{name: "d.json", body: "dddd"}}, false)
	gz := func(b []byte) []byte { return buildGzip(t, b) }
	padded := append(append(bytes.Clone(first), make([]byte, 10240)...), second...)
	w := Walker{Limits: DefaultLimits}
	for name, tc := range map[string]struct {
		data []byte
		want string
	}{
		"two tars":             {concat(first, second), "a.json=1 b.json=2 c.json=3"},
		"three tars":           {concat(first, second, third), "a.json=1 b.json=2 c.json=3 d.json=4"},
		"padded between":       {padded, "a.json=1 b.json=2 c.json=3"},
		"padding after":        {concat(first, make([]byte, 10240)), "a.json=1 b.json=2"},
		"an empty tar first":   {concat(buildTar(t, nil, false), second), "c.json=3"},
		"two gzip members":     {concat(gz(first), gz(second)), "a.json=1 b.json=2 c.json=3"},
		"one gzip of two tars": {gz(concat(first, second)), "a.json=1 b.json=2 c.json=3"},
	} {
		c, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) { return w.WalkTar(bytes.NewReader(tc.data), fn) })
		if got := strings.Join(c.names, " "); err != nil || got != tc.want {
			t.Errorf("%s: read %q (%v), want %q", name, got, err, tc.want)
		}
	}
}

// A tar cut off anywhere is reported as cut off (never as empty), and
// keeps the chats before the cut.
func TestTruncatedTar(t *testing.T) {
	t.Parallel()
	whole := buildTar(t, []tarItem{{name: "a.json", body: strings.Repeat("a", 700)}, {name: "b.json", body: "b"}}, false)
	end := 512 + 1024 + 512 + 512 // both entries, before the end-of-archive marker
	w := Walker{Limits: DefaultLimits}
	for cut := 1; cut < end; cut++ {
		c, err := collect(t, func(fn func(Entry) error) ([]Skipped, error) { return w.WalkTar(bytes.NewReader(whole[:cut]), fn) })
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "cut off") {
			t.Fatalf("cut at %d: %v, want ErrCorrupt saying it was cut off", cut, err)
		}
		want := 0
		if cut >= 512+700 { // a.json's data whole, its padding or not
			want++
		}
		if cut >= 512+1024+512+1 {
			want++
		}
		if len(c.names) != want {
			t.Fatalf("cut at %d: read %v, want %d entries", cut, c.names, want)
		}
	}
}

func concat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func buildGzip(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}
