// Package lakegen writes a realistic lake for benchmarks and tests through
// the real writer (lake.Writer: sorted zstd Parquet, one file set per day
// and organization) and the real commit (catalog.CommitImport: the
// manifest, the records and review sets in one transaction): N
// conversations over D days for several organizations, each with a
// three-level hierarchy, agents and 20 classifiers (a sentiment model and
// a talk model among them) whose results every processed conversation
// has, a share of human reviews, and a few conversations still
// processing. The same seed writes the same data.
package lakegen

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/earshot/earshot/pipeline/analysis"
	"github.com/earshot/earshot/warehouse/catalog"
	"github.com/earshot/earshot/warehouse/lake"
)

// Options size the data.
type Options struct {
	Orgs          int
	Conversations int // over all organizations
	Days          int
	Classifiers   int
	Start         time.Time // the first arrival day
	Seed          uint64
	ReviewShare   float64 // share of processed conversations with a human review
	PendingShare  float64 // share still Processing (no lake rows)
	// Progress, when set, is told how many conversations are committed.
	Progress func(done int)
	// Committed, when set, is given each committed batch and its files,
	// as the ingest job's commit gives them to what keeps the dashboards'
	// figures.
	Committed func(ctx context.Context, files []catalog.LakeFile, b *lake.Batch) error
}

// Defaults are the benchmark's shape at a given size.
func Defaults(conversations int) Options {
	return Options{Orgs: 3, Conversations: conversations, Days: 92, Classifiers: 20,
		Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), Seed: 1, ReviewShare: 0.01, PendingShare: 0.002}
}

// Org is what was generated for one organization.
type Org struct {
	ID          string
	Classifiers []catalog.Classifier
	// Regions, Sites and Teams are the hierarchy's node ids by level;
	// Codes maps a node id to its code.
	Regions, Sites, Teams []string
	Codes                 map[string]string
}

// Writer writes lake files.
type Writer interface {
	Write(ctx context.Context, runID string, b lake.Batch) ([]catalog.LakeFile, error)
}

// Generate creates the organizations and commits their conversations.
func Generate(ctx context.Context, cat *catalog.Catalog, w Writer, o Options) ([]Org, error) {
	orgs := make([]Org, o.Orgs)
	for i := range orgs {
		var err error
		if orgs[i], err = CreateOrg(ctx, cat, fmt.Sprintf("generated-%d", i+1), o.Classifiers); err != nil {
			return nil, err
		}
	}
	return orgs, Commit(ctx, cat, w, orgs, o)
}

// Commit writes o.Conversations conversations of the organizations, day
// by day from o.Start, one commit a day. Ids are UUIDv7 of the arrival
// times, so a second call over the same days adds conversations whose ids
// fall between the first call's.
func Commit(ctx context.Context, cat *catalog.Catalog, w Writer, orgs []Org, o Options) error {
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	perDay := max(o.Conversations/(o.Days*len(orgs)), 1)
	done := 0
	for day := 0; day < o.Days && done < o.Conversations; day++ {
		date := o.Start.AddDate(0, 0, day)
		runID := catalog.NewID()
		var b lake.Batch
		im := catalog.Import{RunID: runID}
		for oi := range orgs {
			n := min(perDay, o.Conversations-done)
			if day == o.Days-1 && oi == len(orgs)-1 {
				n = o.Conversations - done // the remainder on the last day
			}
			g := dayGen{rng: rng, org: &orgs[oi], runID: runID, o: o}
			g.add(date, n, &b, &im)
			done += n
		}
		files, err := w.Write(ctx, runID, b)
		if err != nil {
			return err
		}
		im.Files = files
		if err := cat.Interactions.CommitImport(ctx, im); err != nil {
			return err
		}
		if o.Committed != nil {
			if err := o.Committed(ctx, files, &b); err != nil {
				return err
			}
		}
		if o.Progress != nil {
			o.Progress(done)
		}
	}
	return nil
}

// CreateOrg makes an organization with 3 regions × 3 sites × 4 teams and
// its classifiers: all phrase classifiers but one sentiment model, whose
// result is a label.
func CreateOrg(ctx context.Context, cat *catalog.Catalog, name string, classifiers int) (Org, error) {
	org, err := cat.Orgs.CreateOrganization(ctx, name)
	if err != nil {
		return Org{}, err
	}
	g := Org{ID: org.ID, Codes: map[string]string{}}
	node := func(name, code, parent string) (string, error) {
		n, err := cat.People.CreateNode(ctx, org.ID, catalog.NodeInput{Name: &name, Code: &code, Parent: &parent})
		g.Codes[n.ID] = code
		return n.ID, err
	}
	for r := 1; r <= 3; r++ {
		region, err := node(fmt.Sprintf("Region %d", r), fmt.Sprintf("R%d", r), "")
		if err != nil {
			return g, err
		}
		g.Regions = append(g.Regions, region)
		for s := 1; s <= 3; s++ {
			site, err := node(fmt.Sprintf("Site %d.%d", r, s), fmt.Sprintf("R%dS%d", r, s), region)
			if err != nil {
				return g, err
			}
			g.Sites = append(g.Sites, site)
			for t := 1; t <= 4; t++ {
				team, err := node(fmt.Sprintf("Team %d.%d.%d", r, s, t), fmt.Sprintf("R%dS%dT%d", r, s, t), site)
				if err != nil {
					return g, err
				}
				g.Teams = append(g.Teams, team)
			}
		}
	}
	categories := analysis.Categories
	for i := range classifiers {
		in := catalog.ClassifierInput{Name: ptr(fmt.Sprintf("Topic %02d", i+1)), Description: ptr("Generated phrase classifier."),
			Type: ptr(analysis.TypeClassifier), CategoryName: ptr(categories[i%len(categories)]),
			Reportable: ptr(true), Groupable: ptr(false), IsActive: ptr(true),
			Definition: json.RawMessage(fmt.Sprintf(`{"groups":[{"rules":[{"phrases":["topic %d"]}]}]}`, i+1))}
		switch {
		case i == classifiers-1:
			in.Name, in.Type, in.CategoryName = ptr("Customer sentiment"), ptr(analysis.TypeCoreModel), ptr("SE Suite")
			in.Definition = json.RawMessage(`{"model":"sentiment","speaker":"Customer"}`)
		case i == classifiers-2 && classifiers >= 5:
			in.Name, in.Type, in.CategoryName = ptr("Dead air"), ptr(analysis.TypeCoreModel), ptr("Process")
			in.Definition = json.RawMessage(`{"model":"talk","measure":"silenceShare","above":0.3}`)
		}
		cl, err := cat.Classifiers.CreateClassifier(ctx, org.ID, in)
		if err != nil {
			return g, err
		}
		g.Classifiers = append(g.Classifiers, cl)
	}
	return g, nil
}

func ptr[T any](v T) *T { return &v }

// dayGen writes one organization's conversations of one day.
type dayGen struct {
	rng   *rand.Rand
	org   *Org
	runID string
	o     Options
}

var sentiments = []string{"Positive", "Neutral", "Negative"}

func (g dayGen) add(day time.Time, n int, b *lake.Batch, im *catalog.Import) {
	step := 24 * time.Hour / time.Duration(n+1)
	for i := range n {
		arrived := day.Add(step*time.Duration(i+1) + time.Duration(g.rng.Int64N(int64(step)))).Truncate(time.Microsecond)
		id := idAt(g.rng, arrived)
		// Each agent works in one team, as in a call center; both draws
		// are kept so that the rest of the data stays as it was.
		_ = g.rng.IntN(len(g.org.Teams))
		n := g.rng.IntN(120)
		team := g.org.Teams[n%len(g.org.Teams)]
		agent := fmt.Sprintf("AG%03d", n)
		call := fmt.Sprintf("CALL-%s", id[len(id)-12:])
		interaction := arrived.Add(-time.Duration(g.rng.Int64N(int64(3 * time.Hour)))).Truncate(time.Microsecond)
		media := catalog.MediaProcessedChat
		if g.rng.IntN(10) < 3 {
			media = catalog.MediaAudio
		}
		it := catalog.Interaction{ID: id, OrgID: g.org.ID, MediaType: media, Status: catalog.StatusReadyToSample,
			FileName: "gen-" + id + ".json", ArrivedOn: arrived, InteractionDate: &interaction, HierarchyNodeID: &team,
			AgentCode: &agent, ClientCallID: &call, LocaleID: 1033, Source: "file", LakeRunID: &g.runID}
		if g.rng.Float64() < g.o.PendingShare {
			it.Status, it.LakeRunID = catalog.StatusProcessing, nil
			im.Interactions = append(im.Interactions, it)
			continue
		}
		im.Interactions = append(im.Interactions, it)
		b.Conversations = append(b.Conversations, lake.Conversation{ID: id, RunID: g.runID, OrgID: g.org.ID, MediaType: media,
			FileName: it.FileName, ArrivedOn: arrived, InteractionDate: &interaction, HierarchyNodeID: &team, AgentCode: &agent,
			ClientCallID: &call, LocaleID: 1033, ExtendedMetadata: "{}", TranscriptMode: "chat"})
		g.results(id, arrived, b)
		if g.rng.Float64() < g.o.ReviewShare {
			cl := g.org.Classifiers[g.rng.IntN(len(g.org.Classifiers)-1)]
			im.Reviews = append(im.Reviews, catalog.Review{ID: catalog.NewID(), OrgID: g.org.ID, ConversationID: id,
				EventType: catalog.EventHumanReview, Reviewer: "qa-" + agent, EventTime: arrived.Add(24 * time.Hour),
				Results: []catalog.ReviewResult{{ModelID: cl.ID, Result: ptr(g.rng.IntN(2) == 0)}}})
		}
	}
}

// results are every classifier's result: phrase classifiers true about
// one time in five, the sentiment model a label with its score, the talk
// model a silence share and whether it is above its threshold.
func (g dayGen) results(id string, arrived time.Time, b *lake.Batch) {
	done := arrived.Add(time.Minute)
	for _, cl := range g.org.Classifiers {
		cr := lake.ClassifierResult{ConversationID: id, RunID: g.runID, OrgID: g.org.ID, ArrivedOn: arrived, ClassifierID: cl.ID,
			Version: int32(cl.Version), Type: cl.Type, Category: cl.CategoryName}
		mr := lake.ModelResult{ConversationID: id, RunID: g.runID, OrgID: g.org.ID, ArrivedOn: arrived,
			EventType: catalog.EventModelResults, EventTime: done, ModelID: cl.ID, Version: int32(cl.Version)}
		switch {
		case cl.Name == "Dead air":
			share := g.rng.Float64() * 0.5
			hit := share > 0.3
			cr.Result, cr.Score, mr.Result = fmt.Sprint(hit), &share, &hit
		case cl.Type == analysis.TypeCoreModel:
			i := g.rng.IntN(len(sentiments))
			label := sentiments[i]
			// Around the label's middle, spread by the id rather than the
			// random source, whose sequence other tests' data depend on.
			score := 0.6 - 0.6*float64(i) + 0.2*(float64(crc32.ChecksumIEEE([]byte(id))%1000)/1000-0.5)
			cr.Result, cr.Score, mr.TextResult = label, &score, &label
		default:
			hit := g.rng.IntN(5) == 0
			cr.Result, mr.Result = fmt.Sprint(hit), &hit
		}
		b.ClassifierResults = append(b.ClassifierResults, cr)
		b.ModelResults = append(b.ModelResults, mr)
	}
}

// idAt is a UUIDv7 of a given time (RFC 9562: 48 bits of Unix
// milliseconds, then random bits), so generated ids sort like arrivals.
func idAt(rng *rand.Rand, t time.Time) string {
	var u uuid.UUID
	binary.BigEndian.PutUint64(u[8:], rng.Uint64())
	binary.BigEndian.PutUint16(u[6:], uint16(rng.Uint32()))
	ms := uint64(t.UnixMilli())
	u[0], u[1], u[2], u[3], u[4], u[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u.String()
}
