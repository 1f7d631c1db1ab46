// Package archive reads chat archives (.tar, gzip-compressed tar content,
// .zip) entry by entry, with limits that keep a hostile archive from
// exhausting the machine: entry count, entry size, expanded total and
// compression ratio. Entries that are not plain files (directories, links,
// devices) or whose names would escape (absolute, "..") are skipped and
// reported, never read.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// Limits bound what an archive may hold.
type Limits struct {
	MaxEntries    int     // entries of any kind
	MaxEntryBytes int64   // one file, expanded
	MaxTotalBytes int64   // all files, expanded
	MaxRatio      float64 // expanded / compressed: per zip entry, over a whole gzip stream
}

// DefaultLimits suit chat archives: a chat is small, an archive holds many.
var DefaultLimits = Limits{MaxEntries: 200_000, MaxEntryBytes: 16 << 20, MaxTotalBytes: 8 << 30, MaxRatio: 200}

// ErrLimit is wrapped when the archive as a whole breaks a limit.
var ErrLimit = errors.New("archive limit exceeded")

// ErrCorrupt is wrapped when the archive cannot be read (from some point
// on: the entries before it were read).
var ErrCorrupt = errors.New("archive cannot be read")

// ErrEmpty: the archive holds no entries at all.
var ErrEmpty = errors.New("the archive holds no files")

// Skipped is an entry that was not read, with the reason.
type Skipped struct {
	Name   string
	Reason string
}

// Entry is one file of the archive.
type Entry struct {
	Name string // cleaned, '/'-separated, relative
	Data []byte
	// Err is set when the entry itself could not be read (over the size
	// limit, over the ratio): the entry fails alone.
	Err error
}

// Kind names an archive format.
type Kind string

const (
	Tar Kind = "tar"
	Zip Kind = "zip"
)

// KindOf tells the format from a file name.
func KindOf(name string) (Kind, bool) {
	switch strings.ToLower(path.Ext(name)) {
	case ".tar", ".tgz", ".gz":
		return Tar, true
	case ".zip":
		return Zip, true
	}
	return "", false
}

// Walker reads archives under limits.
type Walker struct {
	Limits Limits
}

// walk state shared by both formats.
type state struct {
	lim     Limits
	entries int
	total   int64
	skipped []Skipped
}

func (s *state) count() error {
	s.entries++
	if s.lim.MaxEntries > 0 && s.entries > s.lim.MaxEntries {
		return fmt.Errorf("%w: more than %d entries", ErrLimit, s.lim.MaxEntries)
	}
	return nil
}

func (s *state) skip(name, reason string) {
	s.skipped = append(s.skipped, Skipped{Name: name, Reason: reason})
}

// presized is the most of an entry's size, as its header gives it, that
// read allocates before the bytes arrive: a header may lie, the bytes
// cannot.
const presized = 1 << 20

// read takes at most MaxEntryBytes+1 of r, into one allocation when the
// entry is the size its header says (0: not known) and no larger than
// presized; over the limit the entry fails alone, over the total the
// archive fails.
func (s *state) read(r io.Reader, size int64) ([]byte, error, error) {
	limit := s.lim.MaxEntryBytes
	buf := bytes.NewBuffer(make([]byte, 0, min(max(size, 0), limit, presized)+bytes.MinRead))
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	data := buf.Bytes()
	s.total += int64(len(data))
	if s.lim.MaxTotalBytes > 0 && s.total > s.lim.MaxTotalBytes {
		return nil, nil, fmt.Errorf("%w: more than %d bytes expanded", ErrLimit, s.lim.MaxTotalBytes)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit), nil
	}
	return data, nil, nil
}

// cleanName returns the entry's safe relative name, or a reason to skip it.
func cleanName(name string) (string, string) {
	if strings.ContainsRune(name, 0) {
		return "", "a NUL byte in its name"
	}
	// Names become file names in the catalog and the lake, whose strings
	// are UTF-8: a zip's CP437 name or a tar's Latin-1 one is kept legible
	// where it can be.
	name = strings.ToValidUTF8(name, "\uFFFD")
	name = strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':') {
		return "", "absolute path"
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." {
			return "", "path escapes the archive (..)"
		}
	}
	clean := path.Clean(name)
	if clean == "." || clean == "" {
		return "", "empty name"
	}
	return clean, ""
}

// WalkTar reads a tar stream, gunzipping it first when it is gzip content,
// calling fn for every regular file. Tars one after the other (and gzip
// members one after the other) are read as one archive, as GNU tar's
// --ignore-zeros reads them: nothing after an end-of-archive marker is
// left unread. It returns the skipped entries.
func (w Walker) WalkTar(r io.Reader, fn func(Entry) error) ([]Skipped, error) {
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		compressed := &counter{r: br}
		gz, err := gzip.NewReader(compressed) // every member, one after the other
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		defer gz.Close()
		br = bufio.NewReader(streamRatioGuard(gz, compressed, w.Limits.MaxRatio))
	}
	s := &state{lim: w.Limits}
	for {
		if err := w.walkOneTar(br, s, fn); err != nil {
			return s.skipped, err
		}
		more, err := afterZeros(br)
		if err != nil {
			return s.skipped, cutOff(err, s)
		}
		if !more && s.entries == 0 {
			return nil, ErrEmpty
		}
		if !more {
			return s.skipped, nil
		}
	}
}

// walkOneTar reads one tar up to its end-of-archive marker.
func (w Walker) walkOneTar(r io.Reader, s *state, fn func(Entry) error) error {
	// A tar ends with zero blocks; one that ends in or right after an
	// entry's padded data was cut off there, and the reader cannot tell:
	// the bytes it took can.
	stream := &counter{r: r}
	tr := tar.NewReader(stream)
	var entryEnd int64 // where the last entry's padded data ends
	for {
		h, err := tr.Next()
		switch {
		case err == io.EOF && s.entries == 0:
			return nil // nothing yet: empty so far
		case err == io.EOF && stream.n <= entryEnd: // in or right after the last entry's padded data
			return fmt.Errorf("%w: it ends after %d entries without its end-of-archive marker: it was cut off", ErrCorrupt, s.entries)
		case err == io.EOF:
			return nil
		case err != nil:
			return cutOff(err, s)
		}
		entryEnd = stream.n + (h.Size+511)/512*512
		if err := s.count(); err != nil {
			return err
		}
		name, why := cleanName(h.Name)
		switch {
		case why != "":
			s.skip(h.Name, why)
			continue
		case h.Typeflag == tar.TypeDir:
			continue // folders are structure, not content: not reported
		case h.Typeflag != tar.TypeReg: // the reader reports old-style regular files as TypeReg too
			s.skip(name, "not a regular file ("+tarType(h.Typeflag)+")")
			continue
		}
		data, entryErr, err := s.read(tr, h.Size)
		if err != nil {
			return cutOff(err, s)
		}
		if err := fn(Entry{Name: name, Data: data, Err: entryErr}); err != nil {
			return err
		}
	}
}

// afterZeros passes the zeros that pad a tar after its end-of-archive
// marker, and tells whether another tar follows.
func afterZeros(br *bufio.Reader) (bool, error) {
	for {
		b, err := br.ReadByte()
		switch {
		case err == io.EOF:
			return false, nil
		case err != nil:
			return false, err
		case b != 0:
			return true, br.UnreadByte()
		}
	}
}

// cutOff is a read error as the archive's damage: an unexpected end says
// that it was cut off, after the entries read.
func cutOff(err error, s *state) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: it was cut off after %d entries", ErrCorrupt, s.entries)
	}
	if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLimit) {
		return err
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

func tarType(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "symbolic link"
	case tar.TypeLink:
		return "hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "fifo"
	}
	return fmt.Sprintf("type %q", t)
}

// WalkZip reads a zip archive (which needs random access to its central
// directory), calling fn for every regular file.
func (w Walker) WalkZip(r io.ReaderAt, size int64, fn func(Entry) error) ([]Skipped, error) {
	if size == 0 {
		return nil, ErrEmpty
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if len(zr.File) == 0 {
		return nil, ErrEmpty
	}
	s := &state{lim: w.Limits}
	for _, f := range zr.File {
		if err := s.count(); err != nil {
			return s.skipped, err
		}
		name, why := cleanName(f.Name)
		mode := f.Mode()
		switch {
		case why != "":
			s.skip(f.Name, why)
			continue
		case mode.IsDir():
			continue
		case !mode.IsRegular():
			s.skip(name, "not a regular file ("+mode.Type().String()+")")
			continue
		}
		if w.Limits.MaxRatio > 0 && f.CompressedSize64 > 0 &&
			float64(f.UncompressedSize64)/float64(f.CompressedSize64) > w.Limits.MaxRatio {
			if err := fn(Entry{Name: name, Err: fmt.Errorf("compression ratio over %.0f:1", w.Limits.MaxRatio)}); err != nil {
				return s.skipped, err
			}
			continue
		}
		rc, err := f.Open()
		if err != nil {
			if err := fn(Entry{Name: name, Err: fmt.Errorf("cannot be opened: %v", err)}); err != nil {
				return s.skipped, err
			}
			continue
		}
		data, entryErr, err := s.read(ratioGuard(rc, f.CompressedSize64, w.Limits.MaxRatio), int64(min(f.UncompressedSize64, presized)))
		rc.Close()
		if err != nil && !errors.Is(err, ErrCorrupt) {
			return s.skipped, err
		}
		if err != nil { // a damaged entry fails alone; the rest of the archive may be fine
			entryErr, data = err, nil
		}
		if err := fn(Entry{Name: name, Data: data, Err: entryErr}); err != nil {
			return s.skipped, err
		}
	}
	return s.skipped, nil
}

// ratioGuard stops reading an entry whose real expansion (not what its
// header claims) passes the ratio.
func ratioGuard(r io.Reader, compressed uint64, ratio float64) io.Reader {
	if ratio <= 0 {
		return r
	}
	max := int64(float64(compressed+1024) * ratio)
	return &guard{r: r, left: max, ratio: ratio}
}

// streamRatioGuard stops reading a decompressed stream once what it gave
// passes the ratio to what was read of the compressed one (with a first
// window of slack: headers expand more than the content).
func streamRatioGuard(r io.Reader, compressed *counter, ratio float64) io.Reader {
	if ratio <= 0 {
		return r
	}
	return &streamGuard{r: r, compressed: compressed, ratio: ratio}
}

type streamGuard struct {
	r          io.Reader
	compressed *counter
	expanded   int64
	ratio      float64
}

func (g *streamGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.expanded += int64(n)
	if float64(g.expanded) > float64(g.compressed.n+64<<10)*g.ratio {
		return n, fmt.Errorf("%w: compression ratio over %.0f:1", ErrCorrupt, g.ratio)
	}
	return n, err
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type guard struct {
	r     io.Reader
	left  int64
	ratio float64
}

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.left -= int64(n)
	if g.left < 0 {
		return n, fmt.Errorf("%w: compression ratio over %.0f:1", ErrCorrupt, g.ratio)
	}
	return n, err
}
