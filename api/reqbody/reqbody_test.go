package reqbody

import (
	"fmt"
	"testing"
)

func TestParseRejectsNonObjects(t *testing.T) {
	for _, in := range []string{``, `null`, `[]`, `"x"`, `1`, `{`, `{"a":1} {"b":2}`, `{"a":1}x`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
	if _, err := Parse([]byte(" {\"a\": 1}\n")); err != nil {
		t.Errorf("whitespace around an object refused: %v", err)
	}
}

func TestFields(t *testing.T) {
	o, err := Parse([]byte(`{
		"FirstName": "  Ann ", "blank": "  ", "nul": null, "num": 3,
		"flag": true, "flagStr": "FALSE", "flagBad": "maybe",
		"list": ["a", "b"], "listBad": [1], "emptyList": [],
		"id": "01A1FE85-79A6-78A0-A477-B0835648AC35", "idBad": "x", "parent": "Remove",
		"when": "2025-10-03", "whenBad": "03/10/2025", "ids": ["01a1fe85-79a6-78a0-a477-b0835648ac35"], "idsBad": ["nope"]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		got  any
		want string
	}{
		{"required trims, key case-insensitive", deref(o.Required("firstName")), "Ann"},
		{"blank required fails", o.Required("blank") == nil, "true"},
		{"missing required fails", o.Required("missing") == nil, "true"},
		{"null is absent", o.String("nul") == nil && !o.Has("nul"), "true"},
		{"number is not a string", o.String("num") == nil, "true"},
		{"bool", deref(o.Bool("flag")), "true"},
		{"bool from string", deref(o.Bool("flagStr")), "false"},
		{"bad bool", o.Bool("flagBad") == nil, "true"},
		{"strings", deref(o.Strings("list")), "[a b]"},
		{"empty list is set", deref(o.Strings("emptyList")), "[]"},
		{"bad strings", o.Strings("listBad") == nil, "true"},
		{"GUID normalized", deref(o.GUID("ID")), "01a1fe85-79a6-78a0-a477-b0835648ac35"},
		{"bad GUID", o.GUID("idBad") == nil, "true"},
		{"remove is empty", fmt.Sprintf("%q", deref(o.GUIDOrRemove("parent"))), `""`},
		{"date", o.Date("when").Format("2006-01-02"), "2025-10-03"},
		{"bad date", o.Date("whenBad") == nil, "true"},
		{"GUIDs", deref(o.GUIDs("ids")), "[01a1fe85-79a6-78a0-a477-b0835648ac35]"},
		{"bad GUIDs", o.GUIDs("idsBad") == nil, "true"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(c.got); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	p := o.Problem()
	if p == nil || p.Status != 400 {
		t.Fatal("no problem despite failed fields")
	}
	for _, field := range []string{"blank", "missing", "num", "flagBad", "listBad", "idBad", "whenBad", "idsBad"} {
		if len(p.Errors[field]) == 0 {
			t.Errorf("errors do not name %s: %v", field, p.Errors)
		}
	}
	for _, field := range []string{"firstName", "flag", "list", "id", "when", "nul"} {
		if len(p.Errors[field]) != 0 {
			t.Errorf("%s wrongly failed: %v", field, p.Errors[field])
		}
	}
	ok, _ := Parse([]byte(`{"a":"b"}`))
	ok.String("a")
	if ok.Problem() != nil {
		t.Error("problem without failures")
	}
}

func deref[T any](v *T) any {
	if v == nil {
		return "<nil>"
	}
	return *v
}

// FuzzParse: any body either is refused or yields an object whose every
// accessor answers without panicking, and whose problem names only fields
// that were asked for.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{`{}`, `{"a":"b"}`, `{"A":1,"a":null}`, `{"x":[1,"2",{}]}`, `[]`, `{"d":"2025-10-03T21:52:26Z"}`, "{\"\\u0000\":\"\\ud800\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		asked := map[string]bool{}
		for _, k := range []string{"a", "x", "d", "A"} {
			asked[k] = true
			o.String(k)
			o.Required(k)
			o.NotBlank(k)
			o.Strings(k)
			o.GUIDs(k)
			o.Bool(k)
			o.Date(k)
			o.GUIDOrRemove(k)
		}
		if p := o.Problem(); p != nil {
			for field := range p.Errors {
				if !asked[field] {
					t.Fatalf("problem names %q, which was not asked for", field)
				}
			}
		}
	})
}

func TestText(t *testing.T) {
	o, err := Parse([]byte(`{"S":"2025-10-01","n":40,"b":true,"list":["A","B c"],"nil":null,"obj":{"x":1},"mixed":[1,"a"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		field, want string
		ok          bool
	}{
		{"s", "2025-10-01", true}, {"N", "40", true}, {"b", "true", true}, {"list", "A,B c", true},
		{"nil", "", false}, {"absent", "", false}, {"obj", "", false}, {"mixed", "", false},
	} {
		if got, ok := o.Text(c.field); got != c.want || ok != c.ok {
			t.Errorf("Text(%q) = %q, %v; want %q, %v", c.field, got, ok, c.want, c.ok)
		}
	}
	if p := o.Problem(); p == nil || len(p.Errors["obj"]) != 1 || len(p.Errors["mixed"]) != 1 || len(p.Errors) != 2 {
		t.Errorf("only obj and mixed fail: %+v", p)
	}
}
