package audio

// ToolError is a failure of the audio tools themselves (ffmpeg or ffprobe
// missing, or not starting, or answering what cannot be read), not of the
// file: the operator's to fix, not the uploader's.
type ToolError struct{ Err error }

func (e *ToolError) Error() string { return e.Err.Error() }
func (e *ToolError) Unwrap() error { return e.Err }
