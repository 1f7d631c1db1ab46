package audio

import "math"

// Utterance is a stretch of speech between silences.
type Utterance struct {
	StartMs int64   // from the start of the channel
	PCM     []int16 // 16 kHz mono
}

// Segmenter cuts a stream of samples into utterances at silences, so a
// recognizer decodes a long call a piece at a time and memory stays flat.
// Speech is a 10 ms frame louder than both an absolute floor and the
// channel's noise floor (tracked as it goes) by a margin; an utterance ends
// after MinSilence of quiet, and is cut at its quietest frame when it
// reaches MaxLength.
type Segmenter struct {
	// Emit receives each utterance; its PCM is not reused.
	Emit func(Utterance) error
	// MinSilence ends an utterance (default 400 ms); MaxLength caps one
	// (default 20 s); Pad is kept on each side (default 150 ms).
	MinSilence, MaxLength, Pad int64

	frame     []int16 // the frame being filled
	pos       int64   // samples seen
	noise     float64 // noise floor estimate, dBFS
	pending   []int16 // audio of the current utterance (incl. padding)
	startPos  int64   // sample where pending starts
	inSpeech  bool
	quiet     int64 // ms of quiet since the last speech frame
	lead      []int16
	heard     bool // any speech at all
	frameDBFS []float64
}

const frameSamples = SampleRate / 100 // 10 ms

// absoluteFloor: frames below it are silence whatever the noise floor.
const absoluteFloor = -50.0

// margin over the noise floor a frame needs to count as speech.
const margin = 12.0

func (s *Segmenter) defaults() {
	if s.MinSilence == 0 {
		s.MinSilence = 400
	}
	if s.MaxLength == 0 {
		s.MaxLength = 20_000
	}
	if s.Pad == 0 {
		s.Pad = 150
	}
	if s.frame == nil {
		s.frame = make([]int16, 0, frameSamples)
		s.noise = absoluteFloor
	}
}

// Heard tells whether any speech was found.
func (s *Segmenter) Heard() bool { return s.heard }

// Write feeds samples.
func (s *Segmenter) Write(pcm []int16) error {
	s.defaults()
	for len(pcm) > 0 {
		n := min(frameSamples-len(s.frame), len(pcm))
		s.frame = append(s.frame, pcm[:n]...)
		pcm = pcm[n:]
		if len(s.frame) == frameSamples {
			if err := s.onFrame(s.frame); err != nil {
				return err
			}
			s.frame = s.frame[:0]
		}
	}
	return nil
}

// Close emits what remains.
func (s *Segmenter) Close() error {
	s.defaults()
	if len(s.frame) > 0 {
		if err := s.onFrame(s.frame); err != nil {
			return err
		}
		s.frame = s.frame[:0]
	}
	if s.inSpeech {
		return s.emit(len(s.pending))
	}
	return nil
}

func dbfs(frame []int16) float64 {
	var sum float64
	for _, v := range frame {
		f := float64(v) / 32768
		sum += f * f
	}
	if sum == 0 {
		return -120
	}
	return 10 * math.Log10(sum/float64(len(frame)))
}

func (s *Segmenter) onFrame(frame []int16) error {
	level := dbfs(frame)
	speech := level > absoluteFloor && level > s.noise+margin
	// The noise floor falls fast and rises slowly, so speech does not
	// lift it but a noisier line does.
	if level < s.noise {
		s.noise = 0.7*s.noise + 0.3*level
	} else if !speech {
		s.noise = 0.995*s.noise + 0.005*level
	}
	s.noise = max(s.noise, -90)
	padSamples := int(s.Pad * SampleRate / 1000)
	start := s.pos
	s.pos += int64(len(frame))
	if !s.inSpeech {
		if !speech {
			// Keep the last Pad of quiet to lead the next utterance.
			s.lead = append(s.lead, frame...)
			if len(s.lead) > padSamples {
				s.lead = append(s.lead[:0], s.lead[len(s.lead)-padSamples:]...)
			}
			return nil
		}
		s.inSpeech, s.heard, s.quiet = true, true, 0
		s.startPos = start - int64(len(s.lead))
		s.pending = append(append(s.pending[:0], s.lead...), frame...)
		s.frameDBFS = append(s.frameDBFS[:0], level)
		s.lead = s.lead[:0]
		return nil
	}
	s.pending = append(s.pending, frame...)
	s.frameDBFS = append(s.frameDBFS, level)
	if speech {
		s.quiet = 0
	} else {
		s.quiet += 10
	}
	if s.quiet >= s.MinSilence {
		// End at the last speech frame plus Pad.
		keep := len(s.pending) - int(s.quiet-s.Pad)*SampleRate/1000
		return s.emit(max(keep, 0))
	}
	if int64(len(s.pending))*1000/SampleRate >= s.MaxLength {
		return s.emit(s.quietestCut())
	}
	return nil
}

// quietestCut is where to cut an over-long utterance: after its quietest
// frame in the last quarter.
func (s *Segmenter) quietestCut() int {
	lead := len(s.pending) - len(s.frameDBFS)*frameSamples // padding before the first frame
	from := len(s.frameDBFS) * 3 / 4
	best := len(s.frameDBFS) - 1
	for i := from; i < len(s.frameDBFS); i++ {
		if s.frameDBFS[i] < s.frameDBFS[best] {
			best = i
		}
	}
	return lead + (best+1)*frameSamples
}

// emit hands over pending[:n] and keeps the rest as the start of the
// next utterance (still in speech when it was a forced cut).
func (s *Segmenter) emit(n int) error {
	n = min(n, len(s.pending))
	u := Utterance{StartMs: s.startPos * 1000 / SampleRate, PCM: append([]int16(nil), s.pending[:n]...)}
	rest := s.pending[n:]
	forced := s.quiet < s.MinSilence && s.inSpeech && n < len(s.pending)
	lead := len(s.pending) - len(s.frameDBFS)*frameSamples // padding before the first frame
	frames := min(max((n-lead)/frameSamples, 0), len(s.frameDBFS))
	s.startPos += int64(n)
	if forced {
		s.pending = append(s.pending[:0], rest...)
		s.frameDBFS = append(s.frameDBFS[:0], s.frameDBFS[frames:]...)
	} else {
		s.inSpeech, s.quiet = false, 0
		s.lead = append(s.lead[:0], rest[max(len(rest)-int(s.Pad*SampleRate/1000), 0):]...)
		s.pending, s.frameDBFS = s.pending[:0], s.frameDBFS[:0]
	}
	if len(u.PCM) == 0 {
		return nil
	}
	return s.Emit(u)
}
