// Package uploadmeta reads the metadata form field of POST /Media/Upload
// and POST /TextMedia/Upload (CONTRACT §3): keys in any casing, every value
// checked, and every refusal one of the contract's exact sentences.
package uploadmeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/earshot/earshot/internal/contract/dates"
)

// The contract's 400 sentences, exactly.
const (
	SentenceExtension   = "You must upload a file with one of the specified allowed extensions."
	SentenceNoMetadata  = "You must upload metadata in the request form."
	SentenceUnparsable  = "Unable to properly parse metadata to chat or audio."
	SentenceInvalidData = "You must upload valid data in your metadata request form payload."
	SentenceFileName    = "You must upload a valid file name with a valid file extension."
	SentenceExtMismatch = "File extension in metadata file name and upload file must match!"
	SentenceDuplicate   = "An interaction with this file name already exists."
	SentenceLocale      = "Unsupported locale id provided. Supported locale ids include: 1033, 2058."
	SentenceHierarchy   = "Invalid Hierarchy Id/Code! You must either specify a valid hierarchy id/code from your organization or omit a hierarchy id/code entirely."
	SentenceFileOrURL   = "You must upload either a file or a signedUrl, not both."
)

// MaxBytes bounds the metadata field.
const MaxBytes = 64 << 10

// Locales the contract supports.
const (
	LocaleEnglish = 1033
	LocaleSpanish = 2058
)

// Upload types.
const (
	TypeAudio = "Audio"
	TypeChat  = "Chat"
)

// Extensions accepted for each upload type (lower case, with the dot).
var (
	AudioExtensions = []string{".wav", ".mp3", ".mp4", ".ogg", ".opus", ".m4a"}
	ChatExtensions  = []string{".tar", ".tar.gz", ".tgz", ".zip"}
	TextExtensions  = []string{".json", ".json_chat"}
)

// Kind tells which operation's keys apply.
type Kind int

const (
	// Media is POST /Media/Upload: FileName and UploadType required.
	Media Kind = iota
	// Text is POST /TextMedia/Upload: Id, FilePath and TimeStamp instead.
	Text
)

// Metadata is a checked metadata field.
type Metadata struct {
	FileName              string // Media: FileName; Text: FilePath ("" = derive from the id)
	UploadType            string // Audio or Chat (Media only)
	ID                    string // Text: the requested conversation id, "" = new
	CallDirection         *string
	Name, Phone, Email    *string
	AgentFirstName        *string
	AgentLastName         *string
	AgentCode             *string
	ClientCallID          *string
	InteractionDate       *time.Time
	Extended              map[string]string
	HierarchyID           *string
	HierarchyCode         *string
	ApplyHierarchyToAgent bool
	LocaleID              int
	LocaleGiven           bool // LocaleId was in the metadata (LocaleID is otherwise the default)
}

// Extension is the file name's extension, lower case, with the dot.
func (m *Metadata) Extension() string { return ExtensionOf(m.FileName) }

// ExtensionOf is a file name's extension, lower case, with the dot; a
// gzip-compressed tar's is ".tar.gz".
func ExtensionOf(name string) string {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".tar.gz") && len(lower) > len(".tar.gz") {
		return ".tar.gz"
	}
	return path.Ext(lower)
}

// Error is a refusal: the contract sentence, and for SentenceInvalidData the
// keys at fault.
type Error struct {
	Sentence string
	Fields   map[string][]string
}

func (e *Error) Error() string { return e.Sentence }

func refuse(sentence string) *Error { return &Error{Sentence: sentence} }

// Parse checks a metadata field for an operation. Checks run in a fixed
// order, so one input always gets the same sentence: the JSON object and
// UploadType, then FileName and its extension, then LocaleId, then every
// other key (all faults reported together), then the hierarchy id's form.
func Parse(raw []byte, kind Kind) (*Metadata, *Error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, refuse(SentenceNoMetadata)
	}
	if len(raw) > MaxBytes {
		return nil, &Error{Sentence: SentenceInvalidData, Fields: map[string][]string{
			"metadata": {fmt.Sprintf("must be at most %d bytes.", MaxBytes)}}}
	}
	var obj map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil || dec.More() {
		return nil, refuse(SentenceUnparsable)
	}
	r := reader{fields: map[string]json.RawMessage{}, errs: map[string][]string{}}
	for k, v := range obj {
		r.fields[strings.ToLower(k)] = v
	}
	m := &Metadata{LocaleID: LocaleEnglish, Extended: map[string]string{}}

	if kind == Media {
		t, ok := r.str("UploadType")
		switch {
		case ok && strings.EqualFold(t, TypeAudio):
			m.UploadType = TypeAudio
		case ok && strings.EqualFold(t, TypeChat):
			m.UploadType = TypeChat
		default:
			return nil, refuse(SentenceUnparsable)
		}
		name, _ := r.str("FileName")
		if !validFileName(name) {
			return nil, refuse(SentenceFileName)
		}
		m.FileName = name
		allowed := AudioExtensions
		if m.UploadType == TypeChat {
			allowed = ChatExtensions
		}
		if !contains(allowed, m.Extension()) {
			return nil, refuse(SentenceExtension)
		}
	} else {
		if r.present("FilePath") {
			name, ok := r.str("FilePath")
			if !ok || !validFileName(name) {
				return nil, refuse(SentenceFileName)
			}
			m.FileName = name
		}
		if id := r.optional("Id"); id != nil {
			u, err := uuid.Parse(*id)
			if err != nil {
				r.fail("Id", "must be a GUID.")
			} else {
				m.ID = u.String()
			}
		}
		m.InteractionDate = r.date("TimeStamp")
	}

	if r.present("LocaleId") {
		v, ok := r.scalar("LocaleId")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || (n != LocaleEnglish && n != LocaleSpanish) {
			return nil, refuse(SentenceLocale)
		}
		m.LocaleID, m.LocaleGiven = n, true
	}

	if d := r.optional("CallDirection"); d != nil {
		switch {
		case strings.EqualFold(*d, "Inbound"):
			m.CallDirection = ptr("Inbound")
		case strings.EqualFold(*d, "Outbound"):
			m.CallDirection = ptr("Outbound")
		default:
			r.fail("CallDirection", "must be Inbound or Outbound.")
		}
	}
	m.Name, m.Phone, m.Email = r.optional("Name"), r.optional("Phone"), r.optional("Email")
	m.AgentFirstName, m.AgentLastName = r.optional("AgentFirstName"), r.optional("AgentLastName")
	m.AgentCode, m.ClientCallID = r.optional("AgentCode"), r.optional("ClientCallId")
	if kind == Media {
		m.InteractionDate = r.date("InteractionDate")
	}
	m.ApplyHierarchyToAgent = r.boolean("ApplyHierarchyToAgent")
	r.extended(m.Extended)
	m.HierarchyCode = r.optional("HierarchyCode")
	hierarchyID := r.optional("HierarchyId")

	if len(r.errs) > 0 {
		return nil, &Error{Sentence: SentenceInvalidData, Fields: r.errs}
	}
	if hierarchyID != nil {
		u, err := uuid.Parse(*hierarchyID)
		if err != nil {
			return nil, refuse(SentenceHierarchy)
		}
		m.HierarchyID = ptr(u.String())
	}
	return m, nil
}

// validFileName: a relative '/'-separated path with a file name that has an
// extension; no empty, "." or ".." segments, no backslash or control
// characters. It becomes part of an object key.
func validFileName(name string) bool {
	if name == "" || len(name) > 512 || strings.ContainsAny(name, "\\") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	base := path.Base(name)
	ext := path.Ext(base)
	return len(ext) > 1 && len(ext) < len(base)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

// reader reads typed values by key, case-insensitively, collecting faults.
type reader struct {
	fields map[string]json.RawMessage
	errs   map[string][]string
}

func (r *reader) fail(key, msg string) { r.errs[key] = append(r.errs[key], msg) }

func (r *reader) raw(key string) (json.RawMessage, bool) {
	v, ok := r.fields[strings.ToLower(key)]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil, false
	}
	return v, true
}

func (r *reader) present(key string) bool {
	_, ok := r.raw(key)
	return ok
}

// str reads a JSON string.
func (r *reader) str(key string) (string, bool) {
	v, ok := r.raw(key)
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// scalar reads a string, number or boolean as text.
func (r *reader) scalar(key string) (string, bool) {
	v, ok := r.raw(key)
	if !ok {
		return "", false
	}
	return scalarText(v)
}

func scalarText(v json.RawMessage) (string, bool) {
	var x any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if dec.Decode(&x) != nil {
		return "", false
	}
	switch t := x.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}

// optional reads a scalar kept as a string (nil when absent or null), at
// most 1000 characters.
func (r *reader) optional(key string) *string {
	if !r.present(key) {
		return nil
	}
	s, ok := r.scalar(key)
	if !ok {
		r.fail(key, "must be a string.")
		return nil
	}
	if len(s) > 1000 {
		r.fail(key, "must be at most 1000 characters.")
		return nil
	}
	return &s
}

func (r *reader) date(key string) *time.Time {
	s := r.optional(key)
	if s == nil {
		return nil
	}
	t, err := dates.Parse(*s)
	if err != nil {
		r.fail(key, "must be a date such as "+dates.Accepted+".")
		return nil
	}
	return &t
}

func (r *reader) boolean(key string) bool {
	s := r.optional(key)
	if s == nil {
		return false
	}
	switch strings.ToLower(*s) {
	case "true":
		return true
	case "false":
		return false
	}
	r.fail(key, "must be true or false.")
	return false
}

// maxExtendedKeys bounds ExtendedMetadataValues.
const maxExtendedKeys = 200

// extended merges the deprecated ExtendedMetadata array (in order) and then
// ExtendedMetadataValues, later keys winning: the current field has the last
// word over the deprecated one. An array item is either {"key":…,
// "value":…} or an object of key/value pairs.
func (r *reader) extended(out map[string]string) {
	if v, ok := r.raw("ExtendedMetadata"); ok {
		var items []map[string]json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			r.fail("ExtendedMetadata", "must be an array of objects.")
		} else {
			for _, item := range items {
				r.mergeObject("ExtendedMetadata", keyValueItem(item), out)
			}
		}
	}
	if v, ok := r.raw("ExtendedMetadataValues"); ok {
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil || obj == nil {
			r.fail("ExtendedMetadataValues", "must be an object of string keys to scalar values.")
		} else {
			r.mergeObject("ExtendedMetadataValues", obj, out)
		}
	}
	if len(out) > maxExtendedKeys {
		r.fail("ExtendedMetadataValues", fmt.Sprintf("must have at most %d keys.", maxExtendedKeys))
	}
}

// keyValueItem turns {"key":"k","value":"v"} (any casing) into {"k":"v"}.
func keyValueItem(item map[string]json.RawMessage) map[string]json.RawMessage {
	if len(item) != 2 {
		return item
	}
	var key, value json.RawMessage
	for k, v := range item {
		switch strings.ToLower(k) {
		case "key":
			key = v
		case "value":
			value = v
		}
	}
	var name string
	if key == nil || value == nil || json.Unmarshal(key, &name) != nil {
		return item
	}
	return map[string]json.RawMessage{name: value}
}

func (r *reader) mergeObject(field string, obj map[string]json.RawMessage, out map[string]string) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "" || len(k) > 200 {
			r.fail(field, "keys must be 1 to 200 characters.")
			continue
		}
		if string(bytes.TrimSpace(obj[k])) == "null" {
			out[k] = ""
			continue
		}
		s, ok := scalarText(obj[k])
		if !ok || len(s) > 4000 {
			r.fail(field, fmt.Sprintf("the value of %q must be a string, number or boolean of at most 4000 characters.", k))
			continue
		}
		out[k] = s
	}
}
