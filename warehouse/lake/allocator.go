package lake

import (
	"math/bits"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// buffers is the allocator of the lake writer's Arrow builders and Parquet
// encoders. Every batch builds its records, encodes them and lets them go:
// with Go's allocator that was the largest share of ingest's garbage, and
// the collector's work grows with it. Here a freed buffer goes back to a
// pool of its size (a power of two) for the next batch; a buffer that is
// never freed is the collector's, as before.
var buffers memory.Allocator = &pooledAllocator{}

// Buffers of up to 1<<maxClass bytes are pooled; larger ones are rare and
// left to Go's allocator.
const (
	minClass = 6 // Arrow wants 64-byte alignment: Go aligns a power of two of 64 bytes or more to at least that
	maxClass = 26
)

type pooledAllocator struct {
	classes [maxClass + 1]sync.Pool // of *[]byte, of length 1<<class
}

// class is the smallest power of two that holds size, as an exponent.
func class(size int) int { return max(minClass, bits.Len(uint(size-1))) }

// Allocate is zeroed memory of size bytes, as Go's allocator gives.
func (a *pooledAllocator) Allocate(size int) []byte {
	c := class(size)
	if size <= 0 || c > maxClass {
		return memory.DefaultAllocator.Allocate(size)
	}
	if kept, ok := a.classes[c].Get().(*[]byte); ok {
		b := (*kept)[:size]
		clear(b)
		return b
	}
	b := make([]byte, size, 1<<c)
	if uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
		return memory.DefaultAllocator.Allocate(size) // never seen; Arrow's alignment is not worth a gamble
	}
	return b
}

// Reallocate grows or shrinks b to size bytes, its contents kept and any
// bytes beyond them zero.
func (a *pooledAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		if size > len(b) {
			clear(b[len(b):size])
		}
		return b[:size]
	}
	grown := a.Allocate(size)
	copy(grown, b)
	a.Free(b)
	return grown
}

// Free keeps b for a later Allocate of its size class. Only a buffer whose
// capacity is a whole class is kept: one of Go's allocator (odd sizes,
// over-allocated for alignment) goes to the collector.
func (a *pooledAllocator) Free(b []byte) {
	c := cap(b)
	if c < 1<<minClass || c > 1<<maxClass || c&(c-1) != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 != 0 {
		return
	}
	b = b[:c]
	a.classes[bits.TrailingZeros(uint(c))].Put(&b)
}
