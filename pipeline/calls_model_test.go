package pipeline

import (
	"testing"

	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/audio"
	"github.com/earshot/earshot/warehouse/catalog"
)

func TestCallModel(t *testing.T) {
	t.Parallel()
	spanish := &asr.Model{Dir: "es-hmm", LanguageModel: "es.lm", Language: "es"}
	org := catalog.AudioSettings{LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}
	for _, tc := range []struct {
		name      string
		telephone string
		locale    int
		rate      int
		want      asr.Model
	}{
		{"wideband: the default acoustic model", "tel", 0, 16000, asr.Model{LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"8 kHz: the telephone model", "tel", 0, 8000, asr.Model{Dir: "tel", LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"below 8 kHz too", "tel", 0, 6000, asr.Model{Dir: "tel", LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"11.025 kHz is not telephone audio", "tel", 0, 11025, asr.Model{LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"a rate the file does not say", "tel", 0, 0, asr.Model{LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"8 kHz without a telephone model", "", 0, 8000, asr.Model{LanguageModel: "acme.lm.mix", Dictionary: "acme.dict"}},
		{"Spanish keeps its own model", "tel", LocaleSpanish, 8000, *spanish},
	} {
		p := Calls{Spanish: spanish, Telephone: tc.telephone}
		got, err := p.model(catalog.Interaction{LocaleID: tc.locale}, org, audio.Info{SampleRate: tc.rate})
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
