// Package pipeline turns staged uploads into conversations: chat archives
// unpacked as streams, audio decoded and transcribed, classifiers run,
// results handed to the lake writer. Its parts so far: chat (the chat
// formats of CONTRACT §3). See ../shared/DESIGN.md, "Processing".
package pipeline
