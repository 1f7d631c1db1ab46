// Package adapt fits PocketSphinx's acoustic model to how an
// organization's calls sound — above all to the telephone line, whose
// 8 kHz audio lacks the upper half of the bands the en-us model was
// trained on — by a global MLLR transform of the model's Gaussian means,
// estimated on transcribed recordings with CMU Sphinxtrain (sphinx_fe
// computes the features, bw aligns them with the transcripts, mllr_solve
// and mllr_transform estimate and apply the transform). One transform for
// every Gaussian has few parameters, so it learns the channel rather than
// the voices it was estimated on (MAP adaptation, which moves each
// Gaussian, learns the voices and was worse on others: docs/perf).
package adapt

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/earshot/earshot/pipeline/asr"
	"github.com/earshot/earshot/pipeline/asr/lm"
	"github.com/earshot/earshot/pipeline/asr/spoken"
)

// maxSeconds is the longest recording bw aligns well in one piece.
const maxSeconds = 60

// Adaptation collects transcribed recordings, then builds an adapted model
// from them. Add writes each one to a working directory, so that memory
// does not grow with the recordings.
type Adaptation struct {
	model, dictionary string
	words             lm.Dictionary
	dir               string
	ids, transcripts  *os.File
	report            Report
}

// Report is what an adaptation used and how well the model fitted it.
type Report struct {
	Recordings, Skipped int
	AudioSeconds        float64
	// LogLikelihood is the average log-likelihood of a frame of the
	// recordings under the model before each pass's transform: it rises
	// as the model fits the channel.
	LogLikelihood []float64
}

// New starts an adaptation of the acoustic model in modelDir, with the
// words of transcripts pronounced by the dictionary.
func New(modelDir, dictionary string) (*Adaptation, error) {
	for _, f := range []string{"mdef", "means", "variances", "transition_matrices", "feat.params", "noisedict"} {
		if _, err := os.Stat(filepath.Join(modelDir, f)); err != nil {
			return nil, fmt.Errorf("acoustic model %s: %w", modelDir, err)
		}
	}
	f, err := os.Open(dictionary)
	if err != nil {
		return nil, err
	}
	words, err := lm.ReadDictionary(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dictionary, err)
	}
	dir, err := os.MkdirTemp("", "earshot-adapt-")
	if err != nil {
		return nil, err
	}
	a := &Adaptation{model: modelDir, dictionary: dictionary, words: words, dir: dir}
	if a.ids, err = os.Create(filepath.Join(dir, "ids")); err == nil {
		a.transcripts, err = os.Create(filepath.Join(dir, "transcripts"))
	}
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Add keeps one recording (16 kHz mono samples) and what was said in it,
// written as people write it (numbers are read as spoken). It reports
// false, and keeps nothing, for a recording without words, longer than a
// minute, or with a word the dictionary cannot pronounce.
func (a *Adaptation) Add(pcm []int16, text string) (bool, error) {
	words := spoken.Words(text)
	if len(words) == 0 || len(pcm) > maxSeconds*asr.SampleRate || len(pcm) < asr.SampleRate/10 {
		a.report.Skipped++
		return false, nil
	}
	for _, w := range words {
		if _, ok := a.words[w]; !ok {
			a.report.Skipped++
			return false, nil
		}
	}
	id := fmt.Sprintf("r%06d", a.report.Recordings)
	raw := make([]byte, 2*len(pcm))
	for i, s := range pcm {
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(s))
	}
	if err := os.WriteFile(filepath.Join(a.dir, id+".raw"), raw, 0o600); err != nil {
		return false, err
	}
	if _, err := fmt.Fprintf(a.ids, "%s\n", id); err != nil {
		return false, err
	}
	if _, err := fmt.Fprintf(a.transcripts, "<s> %s </s> (%s)\n", strings.Join(words, " "), id); err != nil {
		return false, err
	}
	a.report.Recordings++
	a.report.AudioSeconds += float64(len(pcm)) / asr.SampleRate
	return true, nil
}

// Build writes the adapted model to out, which must not exist yet: the
// base model's files, its means moved by passes transforms in turn (each
// estimated on the recordings under the model the one before left).
func (a *Adaptation) Build(ctx context.Context, out string, passes int) (Report, error) {
	if a.report.Recordings == 0 {
		return a.report, errors.New("no recording to adapt on (each needs a transcript whose every word the dictionary pronounces)")
	}
	if _, err := os.Stat(out); err == nil {
		return a.report, fmt.Errorf("%s exists: name a new directory", out)
	}
	if err := a.ids.Close(); err != nil {
		return a.report, err
	}
	if err := a.transcripts.Close(); err != nil {
		return a.report, err
	}
	params, err := readParams(filepath.Join(a.model, "feat.params"))
	if err != nil {
		return a.report, err
	}
	tied, err := params.tiedTo()
	if err != nil {
		return a.report, err
	}
	w := func(name string) string { return filepath.Join(a.dir, name) }
	if err := run(ctx, "sphinx_fe", "-argfile", filepath.Join(a.model, "feat.params"), "-samprate", strconv.Itoa(asr.SampleRate),
		"-c", w("ids"), "-di", a.dir, "-do", a.dir, "-ei", "raw", "-eo", "mfc", "-raw", "yes", "-input_endian", "little"); err != nil {
		return a.report, err
	}
	if err := run(ctx, "pocketsphinx_mdef_convert", "-text", filepath.Join(a.model, "mdef"), w("mdef.txt")); err != nil {
		return a.report, err
	}
	mixw := filepath.Join(a.model, "mixture_weights")
	if _, err := os.Stat(mixw); err != nil {
		mixw = w("mixture_weights")
		if err := mixtureWeights(filepath.Join(a.model, "sendump"), mixw); err != nil {
			return a.report, err
		}
	}
	means := filepath.Join(a.model, "means")
	for pass := range passes {
		acc := w(fmt.Sprintf("acc%d", pass))
		if err := os.Mkdir(acc, 0o700); err != nil {
			return a.report, err
		}
		args := append([]string{"-moddeffn", w("mdef.txt"), "-ts2cbfn", tied,
			"-meanfn", means, "-varfn", filepath.Join(a.model, "variances"), "-mixwfn", mixw,
			"-tmatfn", filepath.Join(a.model, "transition_matrices"),
			"-dictfn", a.dictionary, "-fdictfn", filepath.Join(a.model, "noisedict"),
			"-ctlfn", w("ids"), "-lsnfn", w("transcripts"), "-cepdir", a.dir, "-accumdir", acc}, params.features()...)
		log, err := output(ctx, sphinxtrain("bw"), args...)
		if err != nil {
			return a.report, err
		}
		ll, err := frameLikelihood(log)
		if err != nil {
			return a.report, err
		}
		a.report.LogLikelihood = append(a.report.LogLikelihood, ll)
		matrix, moved := w(fmt.Sprintf("mllr%d", pass)), w(fmt.Sprintf("means%d", pass))
		if err := run(ctx, sphinxtrain("mllr_solve"), "-meanfn", means, "-varfn", filepath.Join(a.model, "variances"),
			"-outmllrfn", matrix, "-accumdir", acc); err != nil {
			return a.report, err
		}
		if err := run(ctx, sphinxtrain("mllr_transform"), "-inmeanfn", means, "-outmeanfn", moved, "-mllrmat", matrix); err != nil {
			return a.report, err
		}
		means = moved
	}
	return a.report, a.write(out, means)
}

// write puts the adapted model in place: built beside out (its parent
// made if missing), then renamed, so that out is whole or absent.
func (a *Adaptation) write(out, means string) error {
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, ".adapt-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	entries, err := os.ReadDir(a.model)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		from := filepath.Join(a.model, e.Name())
		if e.Name() == "means" {
			from = means
		}
		if err := copyFile(from, filepath.Join(tmp, e.Name())); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// Close removes the working directory.
func (a *Adaptation) Close() error {
	for _, f := range []*os.File{a.ids, a.transcripts} {
		if f != nil {
			f.Close()
		}
	}
	return os.RemoveAll(a.dir)
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// frameLikelihood reads bw's closing line, "overall> stats FRAMES (…)
// AVERAGE TOTAL …": the average log-likelihood of a frame.
func frameLikelihood(log string) (float64, error) {
	for line := range strings.Lines(log) {
		if f := strings.Fields(line); len(f) > 4 && f[0] == "overall>" && f[1] == "stats" {
			if frames, err := strconv.Atoi(f[2]); err != nil || frames == 0 {
				break
			}
			return strconv.ParseFloat(f[4], 64)
		}
	}
	return 0, errors.New("sphinxtrain's bw aligned none of the recordings with their transcripts")
}

// params are an acoustic model's feature settings (feat.params).
type params map[string]string

func readParams(path string) (params, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := params{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), " "); ok && strings.HasPrefix(k, "-") {
			p[k] = strings.TrimSpace(v)
		}
	}
	if _, ok := p["-lda"]; ok {
		return nil, errors.New("an acoustic model with an LDA transform cannot be adapted here")
	}
	return p, sc.Err()
}

// tiedTo is bw's name for how the model's states share Gaussians.
func (p params) tiedTo() (string, error) {
	switch p["-model"] {
	case "ptm":
		return ".ptm.", nil
	case "semi":
		return ".semi.", nil
	case "", "cont":
		return ".cont.", nil
	}
	return "", fmt.Errorf("acoustic model type %q is not one bw adapts", p["-model"])
}

// features are the feature settings bw must compute as the model does.
func (p params) features() []string {
	var args []string
	for _, k := range []string{"-feat", "-svspec", "-cmn", "-cmninit", "-varnorm", "-agc", "-ceplen"} {
		if v, ok := p[k]; ok {
			args = append(args, k, v)
		}
	}
	return args
}

// sphinxtrainDirs are where distributions install sphinxtrain's programs.
var sphinxtrainDirs = []string{"/usr/lib/sphinxtrain", "/usr/libexec/sphinxtrain", "/usr/local/libexec/sphinxtrain", "/usr/local/lib/sphinxtrain"}

// sphinxtrain is the path of one of sphinxtrain's programs (its name alone
// when none is installed: running it then says so).
func sphinxtrain(program string) string {
	for _, d := range sphinxtrainDirs {
		if p := filepath.Join(d, program); fileExists(p) {
			return p
		}
	}
	return program
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func run(ctx context.Context, name string, args ...string) error {
	_, err := output(ctx, name, args...)
	return err
}

// output runs a tool and returns what it logged; a tool that fails is
// named with its last lines.
func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%s is not installed (install the sphinxtrain, sphinxbase-utils and pocketsphinx packages)", filepath.Base(name))
		}
		return "", fmt.Errorf("%s: %v: %s", filepath.Base(name), err, lastLines(string(out), 3))
	}
	return string(out), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}
