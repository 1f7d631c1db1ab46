package lm

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/earshot/earshot/pipeline/asr/sphinx"
)

// Files are a built model's files, as an organization's speech settings
// name them.
type Files struct {
	LanguageModel, Dictionary string
}

// BuildFiles trains on files (see Trainer.AddFile) and writes
// DIR/NAME.lm.bin (PocketSphinx's binary format) and DIR/NAME.dict. An
// empty baseDictionary is the en-us model's CMU dictionary. With
// opt.GeneralWeight it also writes DIR/NAME.lm.mix, the domain model mixed
// with the general one (the language model it returns), and the
// dictionary has the base dictionary's words as well as the domain's.
func BuildFiles(ctx context.Context, files []string, baseDictionary string, opt Options, dir, name string) (Files, Stats, error) {
	trainer := NewTrainer()
	for _, f := range files {
		if err := trainer.AddFile(f); err != nil {
			return Files{}, Stats{}, err
		}
	}
	if baseDictionary == "" {
		baseDictionary = sphinx.Engine{}.Dictionary()
	}
	base, err := readDictionaryFile(baseDictionary)
	if err != nil {
		return Files{}, Stats{}, err
	}
	model, dict, stats, err := trainer.Build(ctx, base, opt)
	if err != nil {
		return Files{}, stats, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Files{}, stats, err
	}
	out := Files{LanguageModel: filepath.Join(dir, name+".lm.bin"), Dictionary: filepath.Join(dir, name+".dict")}
	// PocketSphinx converts the ARPA text to its binary format, which a
	// decoder loads in a fraction of the time and memory.
	arpa := out.LanguageModel + ".arpa.tmp"
	defer os.Remove(arpa)
	if err := writeFile(arpa, model.WriteARPA); err != nil {
		return Files{}, stats, err
	}
	if err := sphinx.ConvertLM(arpa, out.LanguageModel); err != nil {
		return Files{}, stats, err
	}
	if opt.GeneralWeight > 0 {
		mixed := filepath.Join(dir, name+sphinx.MixSuffix)
		if err := sphinx.WriteMix(mixed, []sphinx.Component{{Weight: 1 - opt.GeneralWeight, Path: name + ".lm.bin"}, {Weight: opt.GeneralWeight, Path: "en-us"}}); err != nil {
			return Files{}, stats, err
		}
		out.LanguageModel = mixed
		for word, prons := range base {
			if _, ok := dict[word]; !ok {
				dict[word] = prons
			}
		}
	}
	if err := writeFile(out.Dictionary, dict.Write); err != nil {
		return Files{}, stats, err
	}
	return out, stats, nil
}

func readDictionaryFile(path string) (Dictionary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := ReadDictionary(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

func writeFile(path string, write func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
