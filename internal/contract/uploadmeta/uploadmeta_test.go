package uploadmeta

import (
	"strings"
	"testing"
)

func TestParseMedia(t *testing.T) {
	cases := []struct {
		name, raw string
		sentence  string // "" = accepted
		field     string // for SentenceInvalidData
	}{
		{"minimal audio", `{"FileName":"calls/2025/a.wav","UploadType":"Audio"}`, "", ""},
		{"keys in any case", `{"filename":"a.MP3","uploadtype":"audio"}`, "", ""},
		{"chat zip", `{"FileName":"a.zip","UploadType":"Chat"}`, "", ""},
		{"empty", ``, SentenceNoMetadata, ""},
		{"blank", "  \n", SentenceNoMetadata, ""},
		{"not JSON", `FileName=a.wav`, SentenceUnparsable, ""},
		{"array", `[{"FileName":"a.wav"}]`, SentenceUnparsable, ""},
		{"two objects", `{"FileName":"a.wav","UploadType":"Audio"}{}`, SentenceUnparsable, ""},
		{"no upload type", `{"FileName":"a.wav"}`, SentenceUnparsable, ""},
		{"bad upload type", `{"FileName":"a.wav","UploadType":"Video"}`, SentenceUnparsable, ""},
		{"upload type not a string", `{"FileName":"a.wav","UploadType":1}`, SentenceUnparsable, ""},
		{"no file name", `{"UploadType":"Audio"}`, SentenceFileName, ""},
		{"no extension", `{"FileName":"call","UploadType":"Audio"}`, SentenceFileName, ""},
		{"dot only", `{"FileName":"call.","UploadType":"Audio"}`, SentenceFileName, ""},
		{"hidden file", `{"FileName":".wav","UploadType":"Audio"}`, SentenceFileName, ""},
		{"escaping path", `{"FileName":"../x.wav","UploadType":"Audio"}`, SentenceFileName, ""},
		{"absolute path", `{"FileName":"/x.wav","UploadType":"Audio"}`, SentenceFileName, ""},
		{"backslash", `{"FileName":"a\\b.wav","UploadType":"Audio"}`, SentenceFileName, ""},
		{"chat extension for audio", `{"FileName":"a.zip","UploadType":"Audio"}`, SentenceExtension, ""},
		{"audio extension for chat", `{"FileName":"a.wav","UploadType":"Chat"}`, SentenceExtension, ""},
		{"unknown extension", `{"FileName":"a.exe","UploadType":"Audio"}`, SentenceExtension, ""},
		{"locale es", `{"FileName":"a.wav","UploadType":"Audio","LocaleId":2058}`, "", ""},
		{"locale as string", `{"FileName":"a.wav","UploadType":"Audio","LocaleId":"1033"}`, "", ""},
		{"locale fr", `{"FileName":"a.wav","UploadType":"Audio","LocaleId":1036}`, SentenceLocale, ""},
		{"locale words", `{"FileName":"a.wav","UploadType":"Audio","LocaleId":"en-US"}`, SentenceLocale, ""},
		{"bad direction", `{"FileName":"a.wav","UploadType":"Audio","CallDirection":"Sideways"}`, SentenceInvalidData, "CallDirection"},
		{"bad date", `{"FileName":"a.wav","UploadType":"Audio","InteractionDate":"yesterday"}`, SentenceInvalidData, "InteractionDate"},
		{"object name", `{"FileName":"a.wav","UploadType":"Audio","Name":{"first":"x"}}`, SentenceInvalidData, "Name"},
		{"bad apply flag", `{"FileName":"a.wav","UploadType":"Audio","ApplyHierarchyToAgent":"yes"}`, SentenceInvalidData, "ApplyHierarchyToAgent"},
		{"extended not an object", `{"FileName":"a.wav","UploadType":"Audio","ExtendedMetadataValues":[1]}`, SentenceInvalidData, "ExtendedMetadataValues"},
		{"extended nested value", `{"FileName":"a.wav","UploadType":"Audio","ExtendedMetadataValues":{"a":{"b":1}}}`, SentenceInvalidData, "ExtendedMetadataValues"},
		{"deprecated not an array", `{"FileName":"a.wav","UploadType":"Audio","ExtendedMetadata":{"a":"b"}}`, SentenceInvalidData, "ExtendedMetadata"},
		{"huge", `{"FileName":"a.wav","UploadType":"Audio","Name":"` + strings.Repeat("x", MaxBytes) + `"}`, SentenceInvalidData, "metadata"},
		{"bad hierarchy id", `{"FileName":"a.wav","UploadType":"Audio","HierarchyId":"north"}`, SentenceHierarchy, ""},
	}
	for _, c := range cases {
		m, err := Parse([]byte(c.raw), Media)
		switch {
		case c.sentence == "" && err != nil:
			t.Errorf("%s: refused: %v %v", c.name, err.Sentence, err.Fields)
		case c.sentence == "" && m == nil:
			t.Errorf("%s: no metadata", c.name)
		case c.sentence != "" && (err == nil || err.Sentence != c.sentence):
			t.Errorf("%s: got %v, want %q", c.name, err, c.sentence)
		case c.field != "" && len(err.Fields[c.field]) == 0:
			t.Errorf("%s: fields %v do not name %s", c.name, err.Fields, c.field)
		}
	}
}

func TestParseValues(t *testing.T) {
	m, err := Parse([]byte(`{
		"fileName": "q4/call.WAV", "UploadType": "Audio", "callDirection": "inbound",
		"Name": "Kim", "Phone": 5551234, "AgentCode": "A-1", "ClientCallId": "tel-9",
		"InteractionDate": "2025-10-03T17:56:09.8683110-04:00", "HierarchyId": "01A1FE85-79A6-78A0-A477-B0835648AC35",
		"ApplyHierarchyToAgent": true, "LocaleId": 2058,
		"ExtendedMetadata": [{"Key": "queue", "Value": "old"}, {"tier": 2, "vip": true}],
		"ExtendedMetadataValues": {"queue": "billing", "note": null}
	}`), Media)
	if err != nil {
		t.Fatal(err.Sentence, err.Fields)
	}
	checks := map[string][2]string{
		"extension":          {m.Extension(), ".wav"},
		"direction":          {*m.CallDirection, "Inbound"},
		"phone number":       {*m.Phone, "5551234"},
		"date":               {m.InteractionDate.UTC().Format("2006-01-02T15:04:05.0000000Z"), "2025-10-03T21:56:09.8683110Z"},
		"hierarchy id":       {*m.HierarchyID, "01a1fe85-79a6-78a0-a477-b0835648ac35"},
		"queue (values win)": {m.Extended["queue"], "billing"},
		"tier":               {m.Extended["tier"], "2"},
		"vip":                {m.Extended["vip"], "true"},
		"null kept empty":    {m.Extended["note"], ""},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: %q, want %q", name, c[0], c[1])
		}
	}
	if !m.ApplyHierarchyToAgent || m.LocaleID != 2058 || len(m.Extended) != 4 {
		t.Errorf("metadata = %+v", m)
	}
	if d, _ := Parse([]byte(`{"FileName":"a.wav","UploadType":"Audio"}`), Media); d.LocaleID != LocaleEnglish {
		t.Errorf("default locale %d", d.LocaleID)
	}
}

func TestParseText(t *testing.T) {
	m, err := Parse([]byte(`{"Id":"01A1FE85-79A6-78A0-A477-B0835648AC35","FilePath":"chats/1.json","TimeStamp":"2025-10-03"}`), Text)
	if err != nil || m.ID != "01a1fe85-79a6-78a0-a477-b0835648ac35" || m.FileName != "chats/1.json" || m.InteractionDate == nil {
		t.Fatalf("text metadata: %+v %v", m, err)
	}
	if m, err := Parse([]byte(`{}`), Text); err != nil || m.FileName != "" || m.ID != "" {
		t.Fatalf("empty text metadata: %+v %v", m, err)
	}
	if _, err := Parse([]byte(`{"Id":"x"}`), Text); err == nil || err.Sentence != SentenceInvalidData || err.Fields["Id"] == nil {
		t.Fatalf("bad id: %v", err)
	}
	if _, err := Parse([]byte(`{"FilePath":"../x.json"}`), Text); err == nil || err.Sentence != SentenceFileName {
		t.Fatalf("bad path: %v", err)
	}
}

var sentences = []string{SentenceNoMetadata, SentenceUnparsable, SentenceInvalidData, SentenceFileName,
	SentenceExtension, SentenceLocale, SentenceHierarchy}

// FuzzParse: any metadata is accepted with a usable result or refused with
// one of the contract's sentences; nothing panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"FileName":"a.wav","UploadType":"Audio"}`, `{"FileName":"a/b.zip","UploadType":"Chat","LocaleId":2058}`,
		`{"ExtendedMetadata":[{"key":"a","value":1}],"ExtendedMetadataValues":{"b":true}}`, `{"Id":"x","TimeStamp":"2025-10-03"}`,
		`{"FileName":"../a.wav","UploadType":"Audio"}`, `null`, `[]`, `{"HierarchyId":"01a1fe85-79a6-78a0-a477-b0835648ac35"}`,
	} {
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, raw []byte, text bool) {
		kind := Media
		if text {
			kind = Text
		}
		m, err := Parse(raw, kind)
		if err != nil {
			if m != nil || !contains(sentences, err.Sentence) {
				t.Fatalf("refusal %q is not a contract sentence", err.Sentence)
			}
			return
		}
		if m.LocaleID != LocaleEnglish && m.LocaleID != LocaleSpanish {
			t.Fatalf("accepted locale %d", m.LocaleID)
		}
		if kind == Media && (!validFileName(m.FileName) || (m.UploadType != TypeAudio && m.UploadType != TypeChat)) {
			t.Fatalf("accepted %+v", m)
		}
		if m.FileName != "" && (strings.Contains(m.FileName, "..") && !validFileName(m.FileName)) {
			t.Fatalf("accepted an escaping file name %q", m.FileName)
		}
	})
}
