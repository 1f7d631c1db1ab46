package api

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"
)

// A client that sends its whole upload before it reads the answer (as curl
// does after "Expect: 100-continue") gets the early refusal of its bad
// metadata, not a reset connection.
func TestEarlyRefusalReachesASendingClient(t *testing.T) {
	t.Parallel()
	e := newTestEnv(t, Options{})
	srv := httptest.NewServer(e.srv)
	defer srv.Close()
	tok := e.token(t)

	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	mp, _ := w.CreateFormField("metadata")
	io.WriteString(mp, `{"FileName":"a.wav","UploadType":"Video"}`) // not an upload type
	fp, _ := w.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="file"; filename="a.wav"`}})
	fp.Write(bytes.Repeat([]byte{0}, 32<<20))
	w.Close()

	for i := range 5 {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /Media/Upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
			tok, w.FormDataContentType(), body.Len())
		r := bufio.NewReader(conn)
		line, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
			t.Fatalf("before the body: %q %v", line, err)
		}
		r.ReadString('\n')
		// Send everything, then read.
		if _, err := conn.Write(body.Bytes()); err != nil {
			t.Fatalf("run %d: sending the body: %v", i, err)
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatalf("run %d: reading the answer: %v", i, err)
		}
		answer, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 400 || !strings.Contains(string(answer), "metadata") {
			t.Fatalf("run %d: %d %s", i, resp.StatusCode, answer)
		}
		conn.Close()
	}
}
