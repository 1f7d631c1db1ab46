package lake

import (
	"io"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// arrow-go compresses each Parquet page with a zstd encoder from a
// sync.Pool, which every garbage collection empties. A new encoder
// allocates and clears a history window of a megabyte or more, and an
// ingest writes thousands of pages between collections, so most pages paid
// for a new encoder (measured in docs/perf/). This codec, registered in
// arrow-go's place, keeps its encoders until the process ends: at most one
// per page being compressed at once.
func init() { compress.RegisterCodec(compress.Codecs.Zstd, newZstdCodec()) }

type zstdCodec struct {
	mu   sync.Mutex
	idle map[zstd.EncoderLevel][]*zstd.Encoder
	max  int // idle encoders kept per level
	dec  *zstd.Decoder
}

func newZstdCodec() *zstdCodec {
	dec, err := zstd.NewReader(nil)
	if err != nil {
		panic(err) // only invalid options fail
	}
	return &zstdCodec{idle: map[zstd.EncoderLevel][]*zstd.Encoder{}, max: 2 * runtime.GOMAXPROCS(0), dec: dec}
}

func zstdLevel(l int) zstd.EncoderLevel {
	if l == compress.DefaultCompressionLevel {
		return zstd.SpeedDefault
	}
	return zstd.EncoderLevelFromZstd(l)
}

// encode compresses src with an idle encoder of the level, or a new one.
func (z *zstdCodec) encode(dst, src []byte, lvl zstd.EncoderLevel) []byte {
	z.mu.Lock()
	var enc *zstd.Encoder
	if idle := z.idle[lvl]; len(idle) > 0 {
		enc, z.idle[lvl] = idle[len(idle)-1], idle[:len(idle)-1]
	}
	z.mu.Unlock()
	if enc == nil {
		var err error
		enc, err = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1))
		if err != nil {
			panic(err) // only invalid options fail
		}
	}
	out := enc.EncodeAll(src, dst[:0])
	z.mu.Lock()
	if len(z.idle[lvl]) < z.max {
		z.idle[lvl] = append(z.idle[lvl], enc)
	}
	z.mu.Unlock()
	return out
}

func (z *zstdCodec) Encode(dst, src []byte) []byte { return z.encode(dst, src, zstd.SpeedDefault) }

func (z *zstdCodec) EncodeLevel(dst, src []byte, l int) []byte {
	return z.encode(dst, src, zstdLevel(l))
}

func (z *zstdCodec) Decode(dst, src []byte) []byte {
	out, err := z.dec.DecodeAll(src, dst[:0])
	if err != nil {
		panic(err) // as arrow-go's own codec: its Codec interface has no error
	}
	return out
}

// CompressBound is zstd's ZSTD_COMPRESSBOUND, as arrow-go's codec has it.
func (z *zstdCodec) CompressBound(n int64) int64 {
	extra := ((128 << 10) - n) >> 11
	if n >= (128 << 10) {
		extra = 0
	}
	return n + (n >> 8) + extra
}

func (z *zstdCodec) NewReader(r io.Reader) io.ReadCloser {
	dec, err := zstd.NewReader(r)
	if err != nil {
		panic(err)
	}
	return dec.IOReadCloser()
}

func (z *zstdCodec) NewWriter(w io.Writer) io.WriteCloser {
	enc, err := zstd.NewWriter(w)
	if err != nil {
		panic(err)
	}
	return enc
}

func (z *zstdCodec) NewWriterLevel(w io.Writer, l int) (io.WriteCloser, error) {
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstdLevel(l)))
}
