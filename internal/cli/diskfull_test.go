package cli

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A full disk, for real: earshot serve on a small tmpfs that a file then
// fills. Uploads get a 503 that says the storage is full, with
// Retry-After; /readyz says the space is low; once the file is gone,
// uploads are taken and ingested again.
func TestFullDiskIsA503(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process on a tmpfs")
	}
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", data, "tmpfs", 0, "size=48m"); err != nil {
		t.Skipf("mounting a tmpfs needs root (CAP_SYS_ADMIN): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(data, syscall.MNT_DETACH) })

	srv := &crashServer{t: t, data: data, args: []string{"--min-free-space", "2MiB"}}
	srv.start()
	defer srv.stop(syscall.SIGTERM)
	filler := filepath.Join(data, "filler")
	fill(t, filler)

	err := uploadChats(srv.addr, srv.bearer, "full.tar", longChatTar(20, 8, "full"))
	var refused *uploadRefusal
	if !errors.As(err, &refused) || refused.status != http.StatusServiceUnavailable || refused.retryAfter != "60" ||
		!strings.Contains(refused.body, "storage is full") {
		t.Fatalf("an upload to a full disk: %v", err)
	}
	if code, checks := readiness(t, srv.addr); code != http.StatusServiceUnavailable || checks["space"] != "low" || checks["catalog"] != "ok" {
		t.Errorf("/readyz on a full disk: %d %v", code, checks)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, checks := readiness(t, srv.addr); code != http.StatusOK {
		t.Errorf("/readyz once space is freed: %d %v", code, checks)
	}
	if err := uploadChats(srv.addr, srv.bearer, "room.tar", longChatTar(20, 8, "room")); err != nil {
		t.Fatalf("an upload once space is freed: %v", err)
	}
	srv.waitIngested()
}

// fill writes a file until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// readiness is /readyz's status and checks.
func readiness(t *testing.T, addr string) (int, map[string]string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Checks map[string]string }
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Checks
}
