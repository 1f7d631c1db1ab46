package cli

import (
	"context"
	"fmt"
	"syscall"

	"github.com/dustin/go-humanize"

	"github.com/earshot/earshot/api"
)

// spaceCheck is /readyz's check of the free space on the data directory's
// disk, where the catalog, a local bucket and temporary files are written:
// it fails below least, before writes start to fail.
type spaceCheck struct {
	dir   string
	least uint64
}

func (s spaceCheck) Ping(context.Context) error {
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &st); err != nil {
		return fmt.Errorf("free space of %s: %w", s.dir, err)
	}
	free := st.Bavail * uint64(st.Bsize)
	if free < s.least {
		return fmt.Errorf("%s free on the disk of %s, below --min-free-space %s", humanize.IBytes(free), s.dir, humanize.IBytes(s.least))
	}
	return nil
}

// spaceCheck is the data directory's space check, nil with
// --min-free-space 0 (validate has read the size).
func (c *Config) spaceCheck() api.Pinger {
	least, _ := humanize.ParseBytes(c.MinFreeSpace)
	if least == 0 {
		return nil
	}
	return spaceCheck{dir: c.DataDir, least: least}
}
