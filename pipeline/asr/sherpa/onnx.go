package sherpa

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// ONNX runtime aborts the whole process on a model file it cannot parse (a
// C++ exception through the C API), so files are checked first: an ONNX
// model is a protobuf ModelProto, and walking its top-level fields finds
// a truncated download or a file that is not a model without reading the
// weights.

// errNotONNX is a file that is not a complete ONNX model.
var errNotONNX = errors.New("not a complete ONNX model")

// ModelProto's field numbers that every model has.
const (
	fieldIRVersion = 1
	fieldGraph     = 7
)

// checkONNXFile checks an ONNX model file's structure.
func checkONNXFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := checkONNX(f, info.Size()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// checkONNX walks the top-level protobuf fields of r (size bytes): every
// field must be well formed and end within the file, and the IR version and
// the graph must be there.
func checkONNX(r io.ReadSeeker, size int64) error {
	br := bufio.NewReader(r)
	var pos int64
	readVarint := func() (uint64, error) {
		var v uint64
		for shift := uint(0); shift < 64; shift += 7 {
			b, err := br.ReadByte()
			if err != nil {
				return 0, errNotONNX
			}
			pos++
			v |= uint64(b&0x7f) << shift
			if b < 0x80 {
				return v, nil
			}
		}
		return 0, errNotONNX
	}
	skip := func(n int64) error {
		if n < 0 || pos+n > size {
			return fmt.Errorf("%w: a field runs past the end of the file (truncated?)", errNotONNX)
		}
		pos += n
		if _, err := r.Seek(pos, io.SeekStart); err != nil {
			return err
		}
		br.Reset(r)
		return nil
	}
	seen := map[uint64]bool{}
	for pos < size {
		key, err := readVarint()
		if err != nil {
			return err
		}
		field, wire := key>>3, key&7
		if field == 0 {
			return errNotONNX
		}
		seen[field] = true
		switch wire {
		case 0:
			if _, err := readVarint(); err != nil {
				return err
			}
		case 1:
			err = skip(8)
		case 2:
			n, err2 := readVarint()
			if err2 != nil {
				return err2
			}
			if n > uint64(size) {
				return fmt.Errorf("%w: a field runs past the end of the file (truncated?)", errNotONNX)
			}
			err = skip(int64(n))
		case 5:
			err = skip(4)
		default:
			return errNotONNX
		}
		if err != nil {
			return err
		}
	}
	if !seen[fieldIRVersion] || !seen[fieldGraph] {
		return fmt.Errorf("%w: no IR version or no graph", errNotONNX)
	}
	return nil
}
