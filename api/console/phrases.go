package console

import (
	"encoding/json"
	"strings"
)

// Speakers a phrase rule may name.
var speakers = []string{"Any", "Agent", "Customer"}

// simplePhrases reads a phrase rule's definition as the phrases editor
// writes it — one group of one rule, its phrases and speaker — and false
// when it says more (operators, match modes, negation, windows,
// nearness), which only the JSON editor shows.
func simplePhrases(definition string) (phrases []string, speaker string, ok bool) {
	var def struct {
		Operator string
		Groups   []struct {
			Operator string
			Rules    []map[string]json.RawMessage
		}
	}
	if json.Unmarshal([]byte(definition), &def) != nil || def.Operator != "" || len(def.Groups) != 1 ||
		def.Groups[0].Operator != "" || len(def.Groups[0].Rules) != 1 {
		return nil, "", false
	}
	rule := def.Groups[0].Rules[0]
	for key := range rule {
		if key != "phrases" && key != "speaker" {
			return nil, "", false
		}
	}
	speaker = "Any"
	if raw, has := rule["speaker"]; has && json.Unmarshal(raw, &speaker) != nil {
		return nil, "", false
	}
	return phrases, speaker, json.Unmarshal(rule["phrases"], &phrases) == nil
}

// phrasesDefinition is the definition of a rule of phrases, one a line,
// said by a speaker.
func phrasesDefinition(lines, speaker string) string {
	var phrases []string
	for _, line := range strings.Split(lines, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			phrases = append(phrases, line)
		}
	}
	rule := map[string]any{"phrases": phrases}
	if speaker != "" && speaker != "Any" {
		rule["speaker"] = speaker
	}
	raw, _ := json.Marshal(map[string]any{"groups": []any{map[string]any{"rules": []any{rule}}}})
	return string(raw)
}
