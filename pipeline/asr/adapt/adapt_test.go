package adapt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/earshot/earshot/internal/lab/synth"
	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/sphinx"
	"github.com/earshot/earshot/pipeline/audio"
)

func baseModel() (dir, dict string) {
	return sphinx.Engine{}.AcousticModel(), sphinx.Engine{}.Dictionary()
}

// newAdaptation starts an adaptation of the en-us model, closed when the
// test ends.
func newAdaptation(t *testing.T) *Adaptation {
	t.Helper()
	model, dict := baseModel()
	a, err := New(model, dict)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// telephone speaks text with flite and sends it down a telephone line:
// 8 kHz μ-law, then back to 16 kHz as the call pipeline decodes it.
func telephone(t *testing.T, voice, text string) []int16 {
	t.Helper()
	ctx, dir := context.Background(), t.TempDir()
	pcm, err := synth.Speak(ctx, filepath.Join(dir, "s.wav"), voice, text)
	if err != nil {
		t.Fatal(err)
	}
	line, err := synth.Telephone(ctx, synth.WAV(pcm))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "line.wav")
	if err := os.WriteFile(path, line, 0o600); err != nil {
		t.Fatal(err)
	}
	if pcm, err = audio.DecodeAll(ctx, path, -1); err != nil {
		t.Fatal(err)
	}
	return pcm
}

var sentences = []string{
	"I would like to find a restaurant in San Jose",
	"Please book a table for two people at seven in the evening",
	"Can you check the balance of my savings account",
	"I need a one way flight to Chicago on March 3rd",
	"What is the weather going to be like tomorrow",
	"Find me a hotel near the airport with free parking",
	"I want to transfer 200 dollars to my checking account",
	"Is there a bus to Los Angeles in the morning",
	"Please play some music by the Beatles",
	"Set an alarm for six thirty tomorrow morning",
	"How much does a rental car cost for three days",
	"My order has not arrived yet and I am worried",
}

func TestAdaptRaisesTheLikelihoodOfTelephoneSpeech(t *testing.T) {
	t.Parallel()
	model, _ := baseModel()
	a := newAdaptation(t)
	for i, s := range sentences {
		voice := []string{"awb", "kal16"}[i%2]
		if ok, err := a.Add(telephone(t, voice, s), s); err != nil || !ok {
			t.Fatalf("Add(%q) = %v, %v", s, ok, err)
		}
	}
	out := filepath.Join(t.TempDir(), "models", "telephone") // models/ made too
	report, err := a.Build(context.Background(), out, 2)
	if err != nil {
		t.Fatal(err)
	}
	if report.Recordings != len(sentences) || report.Skipped != 0 || report.AudioSeconds < 20 {
		t.Fatalf("report %+v", report)
	}
	if entries, err := os.ReadDir(filepath.Dir(out)); err != nil || len(entries) != 1 || entries[0].Name() != "telephone" {
		t.Fatalf("beside the model: %v, %v (the working directory renamed, nothing left)", entries, err)
	}
	t.Logf("%+v", report)
	// The second pass aligns the recordings under the first transform: the
	// model fits them better than the unadapted one did.
	if len(report.LogLikelihood) != 2 || !(report.LogLikelihood[1] > report.LogLikelihood[0]) {
		t.Fatalf("log-likelihood per frame by pass %v: want a rise", report.LogLikelihood)
	}
	for _, f := range []string{"mdef", "variances", "transition_matrices", "feat.params", "noisedict", "sendump"} {
		same, err := sameFile(filepath.Join(model, f), filepath.Join(out, f))
		if err != nil || !same {
			t.Fatalf("%s: copied unchanged = %v, %v", f, same, err)
		}
	}
	if same, err := sameFile(filepath.Join(model, "means"), filepath.Join(out, "means")); err != nil || same {
		t.Fatalf("means unchanged = %v, %v", same, err)
	}
	rec, err := sphinx.Engine{}.New(asr.Model{Dir: out})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	words, err := rec.Recognize(telephone(t, synth.AgentVoice, "please find restaurants in san jose"))
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, w := range words {
		text = append(text, w.Text)
	}
	if got := strings.Join(text, " "); !strings.Contains(got, "restaurants") {
		t.Fatalf("the adapted model recognized %q", got)
	}
	if _, err := a.Build(context.Background(), out, 1); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("a second build into %s: %v", out, err)
	}
}

func TestAddKeepsOnlyWhatCanBeAligned(t *testing.T) {
	t.Parallel()
	a := newAdaptation(t)
	second := make([]int16, asr.SampleRate)
	for _, tc := range []struct {
		name string
		pcm  []int16
		text string
		want bool
	}{
		{"words the dictionary has", second, "hello there", true},
		{"numbers read as spoken", second, "table for 2 at 7", true},
		{"a word it cannot pronounce", second, "hello zzxqvk", false},
		{"no words", second, " ... ", false},
		{"no audio", nil, "hello", false},
		{"longer than a minute", make([]int16, (maxSeconds+1)*asr.SampleRate), "hello", false},
	} {
		if ok, err := a.Add(tc.pcm, tc.text); err != nil || ok != tc.want {
			t.Errorf("%s: Add = %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	if a.report.Recordings != 2 || a.report.Skipped != 4 {
		t.Fatalf("report %+v", a.report)
	}
	transcripts, err := os.ReadFile(filepath.Join(a.dir, "transcripts"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "<s> hello there </s> (r000000)\n<s> table for two at seven </s> (r000001)\n"; string(transcripts) != want {
		t.Fatalf("transcripts %q, want %q", transcripts, want)
	}
}

func TestBuildWithoutRecordings(t *testing.T) {
	t.Parallel()
	a := newAdaptation(t)
	if _, err := a.Build(context.Background(), filepath.Join(t.TempDir(), "m"), 1); err == nil || !strings.Contains(err.Error(), "no recording") {
		t.Fatalf("Build = %v", err)
	}
}

func TestMixtureWeightsFromSendump(t *testing.T) {
	t.Parallel()
	model, _ := baseModel()
	out := filepath.Join(t.TempDir(), "mixture_weights")
	if err := mixtureWeights(filepath.Join(model, "sendump"), out); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	end := bytes.Index(data, []byte("endhdr\n")) + len("endhdr\n")
	if end%4 != 0 || binary.LittleEndian.Uint32(data[end:]) != 0x11223344 {
		t.Fatalf("header of %d bytes, byte-order mark %x", end, data[end:end+4])
	}
	var dims [4]uint32
	binary.Read(bytes.NewReader(data[end+4:]), binary.LittleEndian, &dims)
	if dims[0] == 0 || dims[1] != 3 || dims[2] == 0 || dims[3] != dims[0]*dims[1]*dims[2] || len(data) != end+20+4*int(dims[3]) {
		t.Fatalf("dimensions %v in %d bytes", dims, len(data))
	}
	weights := make([]float32, dims[3])
	binary.Read(bytes.NewReader(data[end+20:]), binary.LittleEndian, weights)
	checkMixtures(t, int(dims[0]*dims[1]), int(dims[2]), weights)
	if err := mixtureWeights(filepath.Join(model, "means"), out); err == nil {
		t.Fatal("a means file read as a sendump")
	}
}

func sameFile(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, fmt.Errorf("%s: %w", b, err)
	}
	return bytes.Equal(x, y), nil
}

// sendumpOf writes a sendump: the title and header strings, the empty
// string that ends them, the sizes (densities, senones) and the bytes.
func sendumpOf(header []string, densities, senones uint32, body []byte) []byte {
	var b bytes.Buffer
	for _, s := range append([]string{"title"}, header...) {
		binary.Write(&b, binary.LittleEndian, uint32(len(s)+1))
		b.WriteString(s + "\x00")
	}
	binary.Write(&b, binary.LittleEndian, uint32(0))
	binary.Write(&b, binary.LittleEndian, []uint32{densities, senones})
	b.Write(body)
	return b.Bytes()
}

func TestReadSendump(t *testing.T) {
	t.Parallel()
	// Two densities, three senones, one stream; stored density by density.
	// A senone's weights are 1.0001^-(q<<shift), normalized.
	body := []byte{0, 0, 255, 0, 7, 255}
	dims, weights, err := readSendump(bytes.NewReader(sendumpOf([]string{"feature_count 1", "mixw_shift 10"}, 2, 3, body)))
	if err != nil {
		t.Fatal(err)
	}
	if dims != [3]uint32{3, 1, 2} {
		t.Fatalf("dimensions %v", dims)
	}
	low := math.Pow(1.0001, -float64(7<<10))
	want := []float64{0.5, 0.5, 1 / (1 + low), low / (1 + low), 0.5, 0.5}
	for i := range want {
		if math.Abs(float64(weights[i])-want[i]) > 1e-6 {
			t.Fatalf("weights %v, want %v", weights, want)
		}
	}
	for _, bad := range []struct {
		name string
		data []byte
	}{
		{"clustered", sendumpOf([]string{"feature_count 1", "cluster_count 4"}, 2, 3, body)},
		{"no streams", sendumpOf(nil, 2, 3, body)},
		{"too large", sendumpOf([]string{"feature_count 3"}, 1<<20, 1<<20, body)},
		{"short", sendumpOf([]string{"feature_count 1"}, 2, 3, body[:5])},
		{"a header string too long", []byte{0xff, 0xff, 0xff, 0x7f}},
	} {
		if _, _, err := readSendump(bytes.NewReader(bad.data)); err == nil {
			t.Errorf("%s: read without an error", bad.name)
		}
	}
}

// FuzzReadSendump: any bytes as a model's sendump give weights of the
// sizes read, each mixture summing to one, or an error; never a panic or
// an allocation beyond the bound.
func FuzzReadSendump(f *testing.F) {
	model, _ := baseModel()
	if data, err := os.ReadFile(filepath.Join(model, "sendump")); err == nil {
		f.Add(data[:min(len(data), 4096)])
	}
	f.Add(sendumpOf([]string{"feature_count 1"}, 2, 3, []byte{0, 10, 255, 3, 4, 5}))
	f.Fuzz(func(t *testing.T, data []byte) {
		dims, weights, err := readSendump(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(weights) != int(dims[0]*dims[1]*dims[2]) || len(weights) > maxWeights {
			t.Fatalf("%d weights for dimensions %v", len(weights), dims)
		}
		checkMixtures(t, int(dims[0]*dims[1]), int(dims[2]), weights)
	})
}

// checkMixtures fails unless each of the mixtures of densities weights
// sums to one.
func checkMixtures(t *testing.T, mixtures, densities int, weights []float32) {
	t.Helper()
	for m := range mixtures {
		var sum float64
		for _, w := range weights[m*densities : (m+1)*densities] {
			sum += float64(w)
		}
		if math.Abs(sum-1) > 1e-4 {
			t.Fatalf("mixture %d sums to %v", m, sum)
		}
	}
}
