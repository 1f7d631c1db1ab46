// Package web holds the console's pages and static files, embedded in the
// binary so that earshot serve needs nothing beside it.
package web

import "embed"

// Templates are the console's page templates: layout.html and one file a
// page.
//
//go:embed templates/*.html
var Templates embed.FS

// Static are the files served under /console/static/.
//
//go:embed static
var Static embed.FS
