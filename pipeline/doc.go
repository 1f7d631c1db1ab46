// Package pipeline turns staged uploads into conversations: chat archives
// unpacked as streams, audio decoded and transcribed, classifiers run,
// results handed to the lake writer. Its parts: chats (the chat formats of
// CONTRACT §3, single or in archives), calls (audio decoded, segmented and
// transcribed) and the analyzer (classifiers over both). See DESIGN.md,
// "Processing".
package pipeline
