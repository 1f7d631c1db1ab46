package chat

// goccy/go-json builds a type's decoder on its first use and caches it
// without a lock: archives parsed on several goroutines at once can read a
// decoder another goroutine is still building and crash
// (github.com/goccy/go-json issues 474 and 495). Parsing one chat of each
// format at start builds every decoder the parsers use before any
// concurrent use, on both ways a JSON chat is read.
func init() {
	for _, sample := range []string{
		`{"messages":[{"participant":"Agent","text":"Hello","timestamp":"2025-10-01T00:00:00Z"}],"metadata":{"ClientCallId":"x"}}`,
		`{"entries":[{"text":"Hello","role":"AGENT","user_id":1,"start_timestamp_usec":1}]}`,
	} {
		for _, parse := range []func([]byte) (*Conversation, error){parseJSON, parseJSONParts} {
			if _, err := parse([]byte(sample)); err != nil {
				panic("chat: priming the JSON decoders: " + err.Error())
			}
		}
	}
}
