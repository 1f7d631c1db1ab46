package api

import (
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"github.com/earshot/earshot/internal/timing"
)

// Result pages (/ModelResults, /Conversations/Insights) are encoded by the
// appenders below, not by reflection: a page of 1,000 conversations with a
// score of results each is megabytes of JSON, which a reflecting encoder
// writes several times slower. They write exactly what
// encoding/json writes for the same values (field order, null for nil,
// HTML-safe string escaping): TestPageJSONMatchesEncodingJSON and
// FuzzAppendJSONString hold them to it.

// jsonItem is an item of a result page.
type jsonItem interface{ appendJSON(dst []byte) []byte }

// pageBuffers are the buffers pages are written into, reused: growing a
// new one to megabytes for every page cost more than writing it. A
// sync.Pool would lose them at every garbage collection, and the pages
// after it would grow new ones; these are kept until the process ends, as
// many as a page written in parts holds (its results written ahead and its
// encoding, a buffer a part each) for a page at once every maxPageParts
// cores.
var pageBuffers = make(chan *[]byte, 2*min(runtime.GOMAXPROCS(0), maxPageParts)*max(1, runtime.GOMAXPROCS(0)/maxPageParts))

// takePageBuffer is a kept buffer, or a new one when none is free.
func takePageBuffer() *[]byte {
	select {
	case buf := <-pageBuffers:
		return buf
	default:
		return new([]byte)
	}
}

// givePageBuffer keeps buf for the next page, unless enough are kept.
func givePageBuffer(buf *[]byte) {
	select {
	case pageBuffers <- buf:
	default: // as many are kept already
	}
}

// writePage answers a result page: a JSON array of its items, written in
// parts at once (pageParts) and sent part after part, never joined.
func writePage[T jsonItem](c *gin.Context, items []T) {
	stop := timing.Start(c.Request.Context(), "encode")
	page := encodePage(items, pageParts(len(items)))
	stop()
	defer page.giveBack()
	writeServerTiming(c)
	c.Header("Content-Type", "application/json; charset=utf-8")
	c.Header("Content-Length", strconv.Itoa(page.size()))
	c.Status(http.StatusOK)
	for _, part := range page {
		if _, err := c.Writer.Write(*part); err != nil {
			return // the client went away: nothing more to send it
		}
	}
}

// pageJSON is a page's JSON in parts, in order, each in a kept buffer
// (pageBuffers): sent one after the other, they are the page's array.
type pageJSON []*[]byte

// encodePage writes items as a JSON array (null for nil, as
// encoding/json) in parts at once (inParts): the first part opens the
// array, each after it begins with its comma, and the last closes it.
func encodePage[T jsonItem](items []T, parts int) pageJSON {
	if items == nil {
		buf := takePageBuffer()
		*buf = append((*buf)[:0], "null"...)
		return pageJSON{buf}
	}
	page := make(pageJSON, max(1, parts))
	inParts(len(items), parts, func(p, lo, hi int) {
		buf := takePageBuffer()
		open := byte(',')
		if p == 0 {
			open = '['
		}
		*buf = appendItems(append((*buf)[:0], open), items[lo:hi])
		page[p] = buf
	})
	page = slices.DeleteFunc(page, func(buf *[]byte) bool { return buf == nil }) // parts left without items
	last := page[len(page)-1]
	*last = append(*last, ']')
	return page
}

// size is the page's length in bytes.
func (page pageJSON) size() int {
	n := 0
	for _, part := range page {
		n += len(*part)
	}
	return n
}

// giveBack keeps the page's buffers for the pages after it.
func (page pageJSON) giveBack() {
	for _, part := range page {
		givePageBuffer(part)
	}
}

// appendItems writes items separated by commas.
func appendItems[T jsonItem](dst []byte, items []T) []byte {
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = it.appendJSON(dst)
	}
	return dst
}

func appendPage[T jsonItem](dst []byte, items []T) []byte {
	if items == nil {
		return append(dst, "null"...)
	}
	return append(appendItems(append(dst, '['), items), ']')
}

func (it modelResultsItem) appendJSON(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"id":`...), it.ID)
	dst = appendJSONString(append(dst, `,"conversationId":`...), it.ConversationID)
	dst = appendJSONStringPtr(append(dst, `,"clientCallId":`...), it.ClientCallID)
	if it.tail != nil {
		return append(dst, it.tail...)
	}
	return it.appendTail(dst)
}

// appendTail writes a /ModelResults item after its clientCallId: the
// fields a page's fetch knows, before the catalog's check and the public
// ids settle the three before them.
func (it modelResultsItem) appendTail(dst []byte) []byte {
	dst = appendJSONString(append(dst, `,"eventType":`...), it.EventType)
	dst = it.EventTime.AppendJSON(append(dst, `,"eventTime":`...))
	if it.MediaStatus != nil {
		dst = it.MediaStatus.appendJSON(append(dst, `,"mediaStatus":`...))
	}
	dst = append(dst, `,"modelResults":`...)
	if it.ModelResults == nil {
		dst = append(dst, "null"...)
	} else {
		dst = appendPage(dst, *it.ModelResults)
	}
	if r := it.EmissionReceipt; r != nil {
		dst = r.EventTime.AppendJSON(append(dst, `,"emissionReceipt":{"eventTime":`...))
		dst = appendJSONStringPtr(append(dst, `,"authenticxReceiptId":`...), r.AuthenticxReceiptID)
		dst = append(appendJSONStringPtr(append(dst, `,"customerReceiptId":`...), r.CustomerReceiptID), '}')
	}
	return append(appendPage(append(dst, `,"priorResults":`...), it.PriorResults), '}')
}

// openResult opens a result's object up to its "result" key: after the
// shared fields' JSON (head), or, with none, as encoding/json writes a
// nil embedded struct's (no fields at all).
func openResult(dst, head []byte) []byte {
	if head == nil {
		return append(dst, `{"result":`...)
	}
	return append(append(dst, head...), `,"result":`...)
}

// head is the model's fields' JSON, nil for no model.
func (mf *modelFields) head() []byte {
	if mf == nil {
		return nil
	}
	return mf.json
}

// head is the classifier's fields' JSON, nil for no classifier.
func (ic *insightClassifier) head() []byte {
	if ic == nil {
		return nil
	}
	return ic.json
}

// appendJSON writes the model's fields as the start of a result's object
// (not closed).
func (mf *modelFields) appendJSON(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"modelId":`...), mf.ModelID)
	return appendJSONString(append(dst, `,"modelName":`...), mf.ModelName)
}

func (m mediaStatus) appendJSON(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"status":`...), m.Status)
	return append(appendJSONStringPtr(append(dst, `,"reason":`...), m.Reason), '}')
}

func (v modelResultView) appendJSON(dst []byte) []byte {
	dst = openResult(dst, v.modelFields.head())
	switch {
	case v.Result == nil:
		dst = append(dst, "null"...)
	case *v.Result:
		dst = append(dst, "true"...)
	default:
		dst = append(dst, "false"...)
	}
	return append(appendJSONStringPtr(append(dst, `,"textResult":`...), v.TextResult), '}')
}

func (v resultSetView) appendJSON(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"eventType":`...), v.EventType)
	dst = v.EventTime.AppendJSON(append(dst, `,"eventTime":`...))
	return append(appendPage(append(dst, `,"modelResults":`...), v.ModelResults), '}')
}

// appendHead writes an Insights item up to its classifierResults (the
// object not closed): insightLine writes the rest.
func (it insightItem) appendHead(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"conversationId":`...), it.ConversationID)
	dst = appendJSONStringPtr(append(dst, `,"clientCallId":`...), it.ClientCallID)
	dst = it.ArrivedOn.AppendJSON(append(dst, `,"arrivedOn":`...))
	dst = it.InteractionDate.AppendJSON(append(dst, `,"interactionDate":`...))
	return appendJSONString(append(dst, `,"status":`...), it.Status)
}

func (r insightResult) appendJSON(dst []byte) []byte {
	dst = appendJSONString(openResult(dst, r.insightClassifier.head()), r.Result)
	return append(appendJSONStringPtr(append(dst, `,"reasoning":`...), r.Reasoning), '}')
}

// appendJSON writes the classifier's fields as the start of a result's
// object (not closed).
func (ic *insightClassifier) appendJSON(dst []byte) []byte {
	dst = appendJSONString(append(dst, `{"classifierId":`...), ic.ClassifierID)
	dst = appendJSONString(append(dst, `,"classifierName":`...), ic.ClassifierName)
	dst = appendJSONString(append(dst, `,"classifierType":`...), ic.ClassifierType)
	return appendJSONString(append(dst, `,"classifierCategoryName":`...), ic.ClassifierCategoryName)
}

func appendJSONStringPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

// jsonPlain are the ASCII bytes encoding/json writes as they are: not
// control characters, quotes or backslashes, nor <, > and & (escaped so
// that JSON is safe inside HTML).
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string as encoding/json does: the
// short escapes for \b \f \n \r \t, \u00XX for other control characters
// and <, >, &, \ufffd for invalid UTF-8, and \u2028 and \u2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0 // s[start:i] is plain, not yet written
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if jsonPlain[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(dst, s[start:]...), '"')
}
