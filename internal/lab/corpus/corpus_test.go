package corpus

import (
	"fmt"
	"strings"
	"testing"
)

func TestEach(t *testing.T) {
	in := `{"dialogue_id":"1_00000","services":["Restaurants"],"turns":[{"speaker":"customer","text":"Hi."},{"speaker":"agent","text":"Hello."}]}
{"dialogue_id":"1_00001","services":["Hotels"],"turns":[]}
`
	var got []Dialogue
	if err := each(strings.NewReader(in), "x", func(d Dialogue) bool { got = append(got, d); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "1_00000" || got[0].Turns[1].Participant() != "Agent" || got[0].Turns[0].Participant() != "Customer" || got[1].Services[0] != "Hotels" {
		t.Fatalf("%+v", got)
	}
	err := each(strings.NewReader("{\"dialogue_id\":1}\n"), "bad.jsonl", func(Dialogue) bool { return true })
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl line 1") {
		t.Fatalf("bad line: %v", err)
	}
}

func TestReadDev(t *testing.T) {
	ds, err := Read(Dev, 3)
	if err != nil {
		t.Skip(err)
	}
	if len(ds) != 3 || len(ds[0].Turns) == 0 || len(ds[0].Services) == 0 {
		t.Fatalf("%+v", ds)
	}
}

func TestAcrossServices(t *testing.T) {
	var ds []Dialogue
	for i := range 10 {
		ds = append(ds, Dialogue{ID: fmt.Sprint("a", i), Services: []string{"A"}}, Dialogue{ID: fmt.Sprint("b", i), Services: []string{"B", "A"}})
	}
	ds = append(ds, Dialogue{ID: "c0", Services: []string{"C"}})
	got := AcrossServices(ds, 5, 1)
	count := map[string]int{}
	for _, d := range got {
		count[d.Services[0]]++
	}
	if len(got) != 5 || count["A"] != 2 || count["B"] != 2 || count["C"] != 1 {
		t.Fatalf("%v", count)
	}
	again := AcrossServices(ds, 5, 1)
	for i := range got {
		if got[i].ID != again[i].ID {
			t.Fatal("the same seed picked other dialogues")
		}
	}
	if all := AcrossServices(ds, 100, 1); len(all) != len(ds) {
		t.Fatalf("%d of %d", len(all), len(ds))
	}
}
