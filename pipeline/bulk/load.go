package bulk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Rejection is a file the API refused (or that could not be sent).
type Rejection struct {
	Line     int    `json:"line"`
	FileName string `json:"fileName"`
	Reason   string `json:"reason"`
}

// Accepted is a file the API took, with its interaction id. Earlier: an
// earlier load (one interrupted, or run again) uploaded it; this one
// carries on with it.
type Accepted struct {
	FileName string `json:"fileName"`
	ID       string `json:"id"`
	Earlier  bool   `json:"earlier,omitempty"`
}

// uploadedEarlier is the answer to a file whose name the organization has
// already: the interaction that has it.
type uploadedEarlier struct{ id string }

func (e *uploadedEarlier) Error() string { return "uploaded earlier as " + e.id }

// Client uploads through the API with a bearer token.
type Client struct {
	BaseURL string
	Token   string
	HTTP    *http.Client
	Workers int
}

// Upload sends every item, Workers at a time, calling progress after each.
func (c *Client) Upload(ctx context.Context, items []Item, progress func()) ([]Accepted, []Rejection) {
	var mu sync.Mutex
	var accepted []Accepted
	var rejected []Rejection
	work := make(chan Item)
	var wg sync.WaitGroup
	for range max(c.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				id, err := c.uploadOne(ctx, it)
				var earlier *uploadedEarlier
				mu.Lock()
				switch {
				case errors.As(err, &earlier):
					accepted = append(accepted, Accepted{FileName: it.FileName, ID: earlier.id, Earlier: true})
				case err != nil:
					rejected = append(rejected, Rejection{Line: it.Line, FileName: it.FileName, Reason: err.Error()})
				default:
					accepted = append(accepted, Accepted{FileName: it.FileName, ID: id})
				}
				mu.Unlock()
				progress()
			}
		}()
	}
	for _, it := range items {
		select {
		case work <- it:
		case <-ctx.Done():
		}
	}
	close(work)
	wg.Wait()
	return accepted, rejected
}

// uploadOne streams one file and its metadata as multipart.
func (c *Client) uploadOne(ctx context.Context, it Item) (string, error) {
	f, err := os.Open(it.Path)
	if err != nil {
		return "", fmt.Errorf("cannot read the file: %v", err)
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			mf, err := mw.CreateFormField("metadata")
			if err != nil {
				return err
			}
			mf.Write(it.Metadata)
			ff, err := mw.CreateFormFile("file", filepath.Base(it.Path))
			if err != nil {
				return err
			}
			if _, err := io.Copy(ff, f); err != nil {
				return err
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	path := "/Media/Upload"
	if it.Text {
		path = "/TextMedia/Upload"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.BaseURL, "/")+path, pr)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", fmt.Errorf("upload failed: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		ID     string              `json:"id"`
		Detail string              `json:"detail"`
		Errors map[string][]string `json:"errors"`
		// Owner is the interaction that has the file name already.
		Owner string `json:"interactionId"`
	}
	json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body)
	if resp.StatusCode == http.StatusBadRequest && body.Owner != "" {
		return "", &uploadedEarlier{id: body.Owner}
	}
	if resp.StatusCode != http.StatusOK {
		reason := body.Detail
		for k, v := range body.Errors {
			reason += fmt.Sprintf(" (%s: %s)", k, strings.Join(v, " "))
		}
		return "", fmt.Errorf("%d: %s", resp.StatusCode, reason)
	}
	return body.ID, nil
}

// Outcome is what processing made of an accepted upload.
type Outcome struct {
	FileName string   `json:"fileName"`
	ID       string   `json:"id"`
	Earlier  bool     `json:"earlier,omitempty"` // uploaded by an earlier load
	Status   string   `json:"status"`
	Failures []string `json:"failures,omitempty"`
	Chats    int      `json:"chats,omitempty"`       // conversations found in an archive
	Failed   int      `json:"chatsFailed,omitempty"` // of which failed
}

// Statuses reads back the accepted uploads (and an archive's chats)
// through GET /Metadata.
func (c *Client) Statuses(ctx context.Context, accepted []Accepted) ([]Outcome, error) {
	byID := map[string]*Outcome{}
	var out []*Outcome
	for _, a := range accepted {
		o := &Outcome{FileName: a.FileName, ID: a.ID, Earlier: a.Earlier}
		byID[a.ID] = o
		out = append(out, o)
	}
	for start := 0; start < len(accepted); start += 100 {
		end := min(start+100, len(accepted))
		ids := make([]string, 0, end-start)
		for _, a := range accepted[start:end] {
			ids = append(ids, a.ID)
		}
		last := ""
		for {
			url := fmt.Sprintf("%s/Metadata?PageSize=1000&Id=%s&LastId=%s", strings.TrimSuffix(c.BaseURL, "/"), strings.Join(ids, ","), last)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			req.Header.Set("Authorization", "Bearer "+c.Token)
			resp, err := c.HTTP.Do(req)
			if err != nil {
				return nil, err
			}
			var items []struct {
				ID, Status string
				UploadID   *string
				Failures   []struct{ Message string } `json:"processFailures"`
			}
			err = json.NewDecoder(resp.Body).Decode(&items)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return nil, fmt.Errorf("GET /Metadata: %s %v", resp.Status, err)
			}
			for _, it := range items {
				if o, ok := byID[it.ID]; ok {
					o.Status = it.Status
					for _, f := range it.Failures {
						o.Failures = append(o.Failures, f.Message)
					}
				} else if it.UploadID != nil {
					if o, ok := byID[*it.UploadID]; ok {
						o.Chats++
						if it.Status == "FailedToProcess" {
							o.Failed++
						}
					}
				}
				last = it.ID
			}
			if len(items) < 1000 {
				break
			}
		}
	}
	res := make([]Outcome, len(out))
	for i, o := range out {
		res[i] = *o
	}
	return res, nil
}

// Summary totals a load.
type Summary struct {
	Accepted int `json:"accepted"`
	// Earlier of the accepted were uploaded by an earlier load.
	Earlier      int         `json:"earlier"`
	Rejected     []Rejection `json:"rejected"`
	Processed    int         `json:"processed"`
	Failed       int         `json:"failed"`
	Pending      int         `json:"pending"`
	ChatsFailed  int         `json:"chatsFailed"`
	Outcomes     []Outcome   `json:"outcomes"`
	ElapsedMilli int64       `json:"elapsedMs"`
}

// OK tells whether everything was accepted and processed without failure.
func (s Summary) OK() bool {
	return len(s.Rejected) == 0 && s.Failed == 0 && s.ChatsFailed == 0 && s.Pending == 0
}

// Summarize totals rejections and outcomes.
func Summarize(rejected []Rejection, outcomes []Outcome, elapsed time.Duration) Summary {
	s := Summary{Accepted: len(outcomes), Rejected: rejected, Outcomes: outcomes, ElapsedMilli: elapsed.Milliseconds()}
	if s.Rejected == nil {
		s.Rejected = []Rejection{}
	}
	for _, o := range outcomes {
		if o.Earlier {
			s.Earlier++
		}
		switch o.Status {
		case "FailedToProcess":
			s.Failed++
		case "Processing":
			s.Pending++
		default:
			s.Processed++
		}
		s.ChatsFailed += o.Failed
	}
	return s
}
