package api

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Slow bodies end: connections that send a body's start and then nothing
// (to the unauthenticated token endpoint, and to an authenticated
// operation) are answered and closed once their pace runs out, and a
// declared length over an upload's limit is refused before any of the
// body is sent.
func TestSlowAndOversizedBodies(t *testing.T) {
	t.Parallel()
	pace := Pace{Grace: 300 * time.Millisecond}
	e := newTestEnv(t, Options{UnauthenticatedPace: pace, AuthenticatedPace: Pace{Grace: 300 * time.Millisecond, MinRate: 1 << 10}, MaxUploadBytes: 64 << 20})
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	tok := e.token(t)
	addr := strings.TrimPrefix(srv.URL, "http://")

	// answer sends head (and no more) and reads what the server answers,
	// waiting at most ten seconds.
	answer := func(head string) (*http.Response, error) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := conn.Write([]byte(head)); err != nil {
			return nil, err
		}
		return http.ReadResponse(bufio.NewReader(conn), nil)
	}

	const slow = 60
	began := time.Now()
	var wg sync.WaitGroup
	statuses := make(chan string, slow+1)
	for i := range slow {
		wg.Go(func() {
			head := "POST /connect/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ngrant_type"
			if i%2 == 1 { // an authenticated operation's JSON body
				head = fmt.Sprintf("POST /Hierarchy HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\"", tok)
			}
			resp, err := answer(head)
			if err != nil {
				statuses <- "no answer: " + err.Error()
				return
			}
			statuses <- resp.Status
		})
	}
	wg.Wait()
	close(statuses)
	took := time.Since(began)
	counts := map[string]int{}
	for s := range statuses {
		counts[s]++
	}
	if counts["400 Bad Request"] != slow {
		t.Fatalf("slow bodies: %v", counts)
	}
	t.Logf("%d connections with slow bodies answered 400 and closed in %v", slow, took.Round(time.Millisecond))

	// A declared length over the limit: 413 before the body is sent.
	resp, err := answer(fmt.Sprintf("POST /Media/Upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 3000000000\r\n\r\n", tok))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a declared 3 GB upload: %v %v", resp, err)
	}
}
