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
// as the Sphinx-III mixture_weights file sphinxtrain's bw reads. Each
// byte is a negative log (base 1.0001) shifted right by mixw_shift bits;
// each mixture is normalized again after the quantization.
func mixtureWeights(sendump, out string) error {
	f, err := os.Open(sendump)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	header := map[string]int{"mixw_shift": 10}
	if _, err := readString(r); err != nil { // the format's title
		return fmt.Errorf("%s: %w", sendump, err)
	}
	for {
		s, err := readString(r)
		if err != nil {
			return fmt.Errorf("%s: %w", sendump, err)
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
		return fmt.Errorf("%s: clustered mixture weights are not supported", sendump)
	}
	var dims [2]uint32 // densities (codewords), then senones
	if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
		return fmt.Errorf("%s: %w", sendump, err)
	}
	densities, senones, streams := int(dims[0]), int(dims[1]), header["feature_count"]
	if densities <= 0 || senones <= 0 || streams <= 0 || densities*senones*streams > 1<<28 {
		return fmt.Errorf("%s: implausible sizes (%d senones, %d streams, %d densities)", sendump, senones, streams, densities)
	}
	weights := make([]float32, senones*streams*densities)
	row := make([]byte, senones)
	for s := range streams {
		for d := range densities {
			if _, err := io.ReadFull(r, row); err != nil {
				return fmt.Errorf("%s: %w", sendump, err)
			}
			for sen, q := range row {
				weights[(sen*streams+s)*densities+d] = float32(math.Pow(1.0001, -float64(int(q)<<header["mixw_shift"])))
			}
		}
	}
	for m := 0; m < senones*streams; m++ {
		mixture := weights[m*densities : (m+1)*densities]
		var sum float64
		for _, w := range mixture {
			sum += float64(w)
		}
		for i := range mixture {
			mixture[i] = float32(float64(mixture[i]) / sum)
		}
	}
	return writeS3(out, []uint32{uint32(senones), uint32(streams), uint32(densities)}, weights)
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
