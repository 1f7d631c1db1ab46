package adapt

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// mixtureWeights rewrites a PocketSphinx sendump (the mixture weights,
// quantized to a byte each, as the pocketsphinx-en-us package ships them)
// as the Sphinx-III mixture_weights file sphinxtrain's bw reads.
func mixtureWeights(sendump, out string) error {
	f, err := os.Open(sendump)
	if err != nil {
		return err
	}
	defer f.Close()
	dims, weights, err := readSendump(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %w", sendump, err)
	}
	return writeS3(out, dims[:], weights)
}

// maxWeights bounds a sendump's size: the en-us model has about two
// million weights.
const maxWeights = 1 << 24

// readSendump reads a sendump's weights, senone by senone, stream by
// stream. Each byte is a negative log (base 1.0001) shifted right by
// mixw_shift bits; each mixture is normalized again after the
// quantization.
func readSendump(r io.Reader) (dims [3]uint32, weights []float32, err error) {
	header := map[string]int{"mixw_shift": 10}
	if _, err := readString(r); err != nil { // the format's title
		return dims, nil, err
	}
	for {
		s, err := readString(r)
		if err != nil {
			return dims, nil, err
		}
		if s == "" {
			break
		}
		if k, v, ok := strings.Cut(s, " "); ok {
			if n, err := strconv.Atoi(v); err == nil {
				header[k] = n
			}
		}
	}
	if header["cluster_count"] != 0 {
		return dims, nil, errors.New("clustered mixture weights are not supported")
	}
	shift := header["mixw_shift"]
	var sizes [2]uint32 // densities (codewords), then senones
	if err := binary.Read(r, binary.LittleEndian, &sizes); err != nil {
		return dims, nil, err
	}
	densities, senones, streams := int(sizes[0]), int(sizes[1]), header["feature_count"]
	if densities < 1 || senones < 1 || streams < 1 || shift < 0 || shift > 16 ||
		densities > maxWeights || senones > maxWeights || streams > 16 || densities*senones*streams > maxWeights {
		return dims, nil, fmt.Errorf("implausible sizes (%d senones, %d streams, %d densities, shift %d)", senones, streams, densities, shift)
	}
	q := make([]byte, senones*streams*densities) // as stored: stream, density, senone
	if _, err := io.ReadFull(r, q); err != nil {
		return dims, nil, err
	}
	weights = make([]float32, len(q))
	mixture := make([]float64, densities)
	for sen := range senones {
		for s := range streams {
			// Relative to the mixture's largest weight, so that none
			// underflows to a mixture of zeros.
			least := byte(255)
			for d := range densities {
				least = min(least, q[(s*densities+d)*senones+sen])
			}
			var sum float64
			for d := range densities {
				mixture[d] = math.Pow(1.0001, -float64(int(q[(s*densities+d)*senones+sen]-least)<<shift))
				sum += mixture[d]
			}
			for d, w := range mixture {
				weights[(sen*streams+s)*densities+d] = float32(w / sum)
			}
		}
	}
	return [3]uint32{uint32(senones), uint32(streams), uint32(densities)}, weights, nil
}

// readString reads one of a sendump header's strings: its length (the
// terminating NUL included) and its bytes; "" ends the header.
func readString(r io.Reader) (string, error) {
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	if n > 1<<16 {
		return "", errors.New("not a sendump file (a header string's length is implausible)")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b[:n-1]), nil
}

// writeS3 writes a Sphinx-III parameter file: the text header, padded so
// that the byte-order mark lands on a multiple of four, the dimensions,
// the count of values and the values.
func writeS3(path string, dims []uint32, values []float32) error {
	header := "s3\nversion 1.0\n"
	if pad := (len(header) + len("endhdr\n")) % 4; pad != 0 {
		header += strings.Repeat(" ", 4-pad)
	}
	header += "endhdr\n"
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString(header)
	binary.Write(w, binary.LittleEndian, uint32(0x11223344))
	binary.Write(w, binary.LittleEndian, dims)
	binary.Write(w, binary.LittleEndian, uint32(len(values)))
	binary.Write(w, binary.LittleEndian, values)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
