// Package jobs will hold the scheduled jobs (robfig/cron): ingest, sample,
// compact, reclassify and export, each run recorded in the catalog. It
// arrives with the pipeline issue; see ../shared/DESIGN.md, "Jobs".
package jobs
