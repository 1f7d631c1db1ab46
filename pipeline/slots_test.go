package pipeline

import (
	"errors"
	"testing"
)

func TestSlots(t *testing.T) {
	s := NewSlots(1, 2)
	a1, err := s.Take("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take("a"); !errors.Is(err, ErrNoSlot) {
		t.Fatalf("a second evaluation of one organization: %v", err)
	}
	b1, err := s.Take("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Take("c"); !errors.Is(err, ErrNoSlot) {
		t.Fatalf("over the total: %v", err)
	}
	a1()
	a1() // releasing twice gives back one slot
	if _, err := s.Take("c"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := s.Take("a"); !errors.Is(err, ErrNoSlot) {
		t.Fatalf("the total again: %v", err)
	}
	b1()
	if _, err := s.Take("a"); err != nil {
		t.Fatalf("after b's release: %v", err)
	}
}
