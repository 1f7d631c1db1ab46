package sherpa

import (
	"bytes"
	"errors"
	"testing"
)

// A minimal ModelProto: ir_version 8, producer "earshot", a graph of 3
// bytes.
var tinyModel = []byte{0x08, 0x08, 0x12, 0x07, 'e', 'a', 'r', 's', 'h', 'o', 't', 0x3a, 0x03, 0x0a, 0x01, 'g'}

func TestCheckONNX(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		ok   bool
	}{
		{"model", tinyModel, true},
		{"truncated", tinyModel[:len(tinyModel)-1], false},
		{"text", []byte("x"), false},
		{"html error page", []byte("<html><body>404 Not Found</body></html>"), false},
		{"no graph", tinyModel[:11], false},
		{"empty", nil, false},
		{"group wire type", []byte{0x0b, 0x0c}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkONNX(bytes.NewReader(tc.data), int64(len(tc.data)))
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, errNotONNX)) {
				t.Fatalf("checkONNX: %v", err)
			}
		})
	}
}

func FuzzCheckONNX(f *testing.F) {
	f.Add(tinyModel)
	f.Add([]byte("x"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkONNX(bytes.NewReader(data), int64(len(data)))
	})
}
