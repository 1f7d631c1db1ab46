// Package pipeline will turn staged uploads into conversations: chat
// archives unpacked as streams, audio decoded with ffmpeg and transcribed,
// classifiers run, results handed to the lake writer. It arrives with the
// pipeline issues; see ../shared/DESIGN.md, "Processing".
package pipeline
