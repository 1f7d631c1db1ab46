package lake

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// The registered zstd codec is this package's, and what it compresses at
// each level (and at once, from many goroutines) decompresses to the input.
func TestZstdCodecRoundTrips(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := codec.(*zstdCodec); !ok {
		t.Fatalf("the registered zstd codec is %T", codec)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{{}, []byte("a"), bytes.Repeat([]byte("conversation "), 100_000)}
	noise := make([]byte, 300_000)
	for i := range noise {
		noise[i] = byte(rng.IntN(256))
	}
	inputs = append(inputs, noise)
	var wg sync.WaitGroup
	for _, lvl := range []int{compress.DefaultCompressionLevel, 1, 3, 9} {
		for _, in := range inputs {
			for range 4 {
				wg.Go(func() {
					var packed []byte
					if lvl == compress.DefaultCompressionLevel {
						packed = codec.Encode(nil, in)
					} else {
						packed = codec.EncodeLevel(make([]byte, 0, codec.CompressBound(int64(len(in)+1))), in, lvl)
					}
					if out := codec.Decode(nil, packed); !bytes.Equal(out, in) {
						t.Errorf("level %d, %d bytes: decoded %d bytes that differ", lvl, len(in), len(out))
					}
				})
			}
		}
	}
	wg.Wait()
}
