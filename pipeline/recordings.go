package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/earshot/earshot/pipeline/audio"
	"github.com/earshot/earshot/warehouse/blob"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Recordings silences, in a call's kept original, what redaction took out
// of its transcript: the spans of the words it blanked. An organization
// that redacts and keeps originals still plays its calls back (the
// console does), and PCI DSS forbids keeping a card number or its
// security code in a recording. Without keepOriginals the original is
// deleted after the commit and there is nothing to silence.
type Recordings struct {
	Open    Opener
	Store   ObjectWriter
	Privacy interface {
		PrivacySettings(ctx context.Context, orgID string) (catalog.PrivacySettings, error)
	}
}

// ObjectWriter stores an object (warehouse/blob).
type ObjectWriter interface {
	Put(ctx context.Context, key string, r io.Reader, opts blob.PutOptions) (blob.ObjectInfo, error)
}

// silencePad widens each silenced word: a recognizer's word timings are
// approximate, and a digit clipped at either end can still be heard.
const silencePad = 150 * time.Millisecond

// Silence replaces a redacted call's staged original with the recording
// silenced where its transcript was redacted; it does nothing to other
// results.
func (rc Recordings) Silence(ctx context.Context, r *Result) error {
	up := r.Outcome.Upload
	if up.MediaType != catalog.MediaAudio || up.StagedKey == nil {
		return nil
	}
	spans := RedactedSpans(r.Batch.Segments)
	if len(spans) == 0 {
		return nil
	}
	settings, err := rc.Privacy.PrivacySettings(ctx, up.OrgID)
	if err != nil {
		return ourFault(fmt.Errorf("the organization's privacy settings cannot be read: %w", err))
	}
	if !settings.KeepOriginals {
		return nil
	}
	in, cleanup, err := spool(ctx, rc.Open, *up.StagedKey)
	if err != nil {
		return err
	}
	defer cleanup()
	out := in + ".silenced" + filepath.Ext(in)
	defer os.Remove(out)
	if err := audio.Silence(ctx, in, out, spans); err != nil {
		return err
	}
	f, err := os.Open(out)
	if err != nil {
		return ourFault(err)
	}
	defer f.Close()
	if _, err := rc.Store.Put(ctx, *up.StagedKey, f, blob.PutOptions{}); err != nil {
		return ourFault(fmt.Errorf("the silenced recording cannot be stored: %w", err))
	}
	return nil
}

// RedactedSpans are the stretches of a call where redaction blanked words,
// each widened by silencePad, merged where they meet.
func RedactedSpans(segments []lake.Segment) []audio.Span {
	var spans []audio.Span
	for _, s := range segments {
		for _, w := range s.Words {
			if w.Word == RedactedWord {
				start := max(time.Duration(w.StartMs)*time.Millisecond-silencePad, 0)
				spans = append(spans, audio.Span{Start: start, End: time.Duration(w.EndMs)*time.Millisecond + silencePad})
			}
		}
	}
	slices.SortFunc(spans, func(a, b audio.Span) int { return cmp.Compare(a.Start, b.Start) })
	var merged []audio.Span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.Start <= merged[n-1].End {
			merged[n-1].End = max(merged[n-1].End, s.End)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}
