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
	num := func(v float64) { line = strconv.AppendFloat(line, v, 'f', 6, 64) }
	for id, word := range m.words {
		line = line[:0]
		num(m.uni[id])
		line = append(line, '\t')
		line = append(line, word...)
		if id != endID {
			line = append(line, '\t')
			num(m.uniBackoff[id])
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	bw.WriteString("\n\\2-grams:\n")
	for _, k := range sortedKeys(m.bi) {
		a, b := split2(k)
		line = line[:0]
		num(m.bi[k])
		line = append(line, '\t')
		line = append(line, m.words[a]...)
		line = append(line, ' ')
		line = append(line, m.words[b]...)
		if bo, ok := m.biBackoff[k]; ok {
			line = append(line, '\t')
			num(bo)
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	bw.WriteString("\n\\3-grams:\n")
	for _, k := range sortedKeys(m.tri) {
		a, b, c := split3(k)
		line = line[:0]
		num(m.tri[k])
		line = append(line, '\t')
		line = append(line, m.words[a]...)
		line = append(line, ' ')
		line = append(line, m.words[b]...)
		line = append(line, ' ')
		line = append(line, m.words[c]...)
		line = append(line, '\n')
		bw.Write(line)
	}
	bw.WriteString("\n\\end\\\n")
	return bw.Flush()
}
