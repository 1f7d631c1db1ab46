package lake

import (
	"bytes"
	"testing"
	"unsafe"
)

// The pooled allocator gives what Arrow expects of Go's: zeroed memory,
// 64-byte aligned, contents kept when it grows; and a freed buffer comes
// back zeroed, whatever was written in it.
func TestPooledAllocator(t *testing.T) {
	a := &pooledAllocator{}
	aligned := func(b []byte) bool { return uintptr(unsafe.Pointer(unsafe.SliceData(b)))%64 == 0 }
	for _, size := range []int{1, 63, 64, 65, 1000, 4096, 100_000, 1 << maxClass, 1<<maxClass + 1} {
		b := a.Allocate(size)
		if len(b) != size || !aligned(b) || bytes.Count(b, []byte{0}) != size {
			t.Fatalf("Allocate(%d): len %d, aligned %v, zeroed %v", size, len(b), aligned(b), bytes.Count(b, []byte{0}) == size)
		}
		for i := range b {
			b[i] = 0xff
		}
		grown := a.Reallocate(size*3, b)
		if len(grown) != size*3 || !aligned(grown) || bytes.Count(grown[:size], []byte{0xff}) != size || bytes.Count(grown[size:], []byte{0}) != 2*size {
			t.Fatalf("Reallocate(%d) of %d: contents not kept or the rest not zero", size*3, size)
		}
		a.Free(grown)
	}
	// Written, freed, allocated again: zero, including what a shrink and a
	// growth within the buffer's capacity uncover.
	for range 3 {
		b := a.Allocate(1000)
		for i := range b {
			b[i] = 0xff
		}
		b = a.Reallocate(10, b)
		b = a.Reallocate(900, b)
		if bytes.Count(b[10:], []byte{0}) != 890 {
			t.Fatal("growing within the capacity uncovered old bytes")
		}
		a.Free(b)
		if again := a.Allocate(1000); bytes.Count(again, []byte{0}) != 1000 {
			t.Fatal("a reused buffer is not zeroed")
		}
	}
	a.Free(make([]byte, 100)) // not one of a class: left to the collector
	a.Free(nil)
}
