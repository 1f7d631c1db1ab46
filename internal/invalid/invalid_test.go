package invalid

import (
	"errors"
	"fmt"
	"testing"
)

func TestSentence(t *testing.T) {
	t.Parallel()
	exists := errors.New("exists")
	for _, tc := range []struct {
		field *Field
		want  string
	}{
		{At("answers", "must answer the required questions."), "answers must answer the required questions."},
		{&Field{Message: "The file lists no classifiers."}, "The file lists no classifiers."},
		{&Field{Path: "name", Message: "is taken.", Detail: "Another form has this name."}, "Another form has this name."},
		{&Field{Path: "code", Message: "is taken.", Err: exists}, "code is taken."},
	} {
		wrapped := fmt.Errorf("saving: %w", tc.field)
		got, ok := As(wrapped)
		if !ok || got.Sentence() != tc.want || tc.field.Error() != tc.want {
			t.Errorf("%+v: sentence %q (found %v), want %q", tc.field, got.Sentence(), ok, tc.want)
		}
		if errors.Is(wrapped, exists) != (tc.field.Err == exists) {
			t.Errorf("%+v: errors.Is(exists) wrong", tc.field)
		}
	}
	if _, ok := As(errors.New("other")); ok {
		t.Error("a plain error is not a field error")
	}
}
