package jobs

import (
	"context"
	"log/slog"

	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// FigureKeeper keeps the dashboards' figures of newly committed lake
// files (results.Reader), so that no dashboard reads them from the lake.
type FigureKeeper interface {
	KeepFigures(ctx context.Context, written []catalog.LakeFile, batch *lake.Batch) error
}

// keepFigures has the figures of committed files kept, when there is a
// keeper; batch, when set, holds the rows written to them. A failure
// loses nothing — a dashboard reads what is not kept from the lake, and
// keeps it — so it is logged, not returned.
func keepFigures(ctx context.Context, k FigureKeeper, log *slog.Logger, written []catalog.LakeFile, batch *lake.Batch) {
	if k == nil || len(written) == 0 {
		return
	}
	if err := k.KeepFigures(ctx, written, batch); err != nil && ctx.Err() == nil {
		log.Warn("dashboard figures not kept (a dashboard will read them from the lake)", "err", err)
	}
}
