package lm

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteARPA writes the model in the ARPA back-off format: each n-gram with
// its log10 probability and, for histories, its log10 backoff weight.
func (m *Model) WriteARPA(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sizes := m.Sizes()
	fmt.Fprintf(bw, "\\data\\\nngram 1=%d\nngram 2=%d\nngram 3=%d\n\n\\1-grams:\n", sizes[0], sizes[1], sizes[2])
	var line []byte
	// entry writes "logprob<TAB>w1 w2 w3[<TAB>backoff]".
	entry := func(prob float64, backoff *float64, ids ...uint32) {
		line = strconv.AppendFloat(line[:0], prob, 'f', 6, 64)
		for i, id := range ids {
			sep := byte(' ')
			if i == 0 {
				sep = '\t'
			}
			line = append(append(line, sep), m.words[id]...)
		}
		if backoff != nil {
			line = append(line, '\t')
			line = strconv.AppendFloat(line, *backoff, 'f', 6, 64)
		}
		bw.Write(append(line, '\n'))
	}
	for id := range m.words {
		var bo *float64
		if id != endID {
			bo = &m.uniBackoff[id]
		}
		entry(m.uni[id], bo, uint32(id))
	}
	bw.WriteString("\n\\2-grams:\n")
	for _, k := range sortedKeys(m.bi) {
		var bo *float64
		if v, ok := m.biBackoff[k]; ok {
			bo = &v
		}
		a, b := split2(k)
		entry(m.bi[k], bo, a, b)
	}
	bw.WriteString("\n\\3-grams:\n")
	for _, k := range sortedKeys(m.tri) {
		a, b, c := split3(k)
		entry(m.tri[k], nil, a, b, c)
	}
	bw.WriteString("\n\\end\\\n")
	return bw.Flush()
}
