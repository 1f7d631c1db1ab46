package api

import (
	"github.com/earshot/earshot/internal/app/classifiers"
	"github.com/earshot/earshot/internal/app/qa"
	"github.com/earshot/earshot/internal/app/reviews"
)

// The operations' handlers are grouped by domain, one type each, over the
// use cases of internal/app and the stores; shared is what every group
// reads with: the services, the settings, and the translations at the
// API's edge (public ids, reach, error answers).
type shared struct {
	deps Deps
	opts Options
	// The use cases the console calls too.
	qa        qa.Service
	authoring classifiers.Service // classifiers: reading, writing, running
	reviews   reviews.Service
}

func newShared(deps Deps, opts Options) *shared {
	return &shared{deps: deps, opts: opts,
		qa: qa.Service{Conversations: deps.Interactions, Evaluations: deps.Quality, Classifiers: deps.Classifiers, Workflows: deps.Workflows, Users: deps.People, People: deps.People,
			Sampler: deps.Interactions, Sampling: opts.Sampling},
		authoring: classifiers.Service{Store: deps.Classifiers, Compiler: deps.Compiler, Slots: deps.Evaluations, Jobs: deps.Jobs,
			Conversations: deps.Interactions, Transcripts: deps.Results, Reviews: deps.Reviews, Hierarchy: deps.People},
		reviews: reviews.Service{Conversations: deps.Interactions, Reviews: deps.Reviews, Lake: deps.Results, Classifiers: deps.Classifiers}}
}

// peopleAPI: users, roles, the hierarchy, users' access, agents, /Me.
type peopleAPI struct{ *shared }

// conversationsAPI: uploads, metadata, transcripts, /Interactions.
type conversationsAPI struct{ *shared }

// resultsAPI: /ModelResults, reviews, insights.
type resultsAPI struct{ *shared }

// qualityAPI: evaluation forms, evaluations, workflows.
type qualityAPI struct{ *shared }

// classifiersAPI: classifiers, their dry runs, re-classification,
// training, jobs.
type classifiersAPI struct{ *shared }

// deliveryAPI: the emission endpoint and its receipts.
type deliveryAPI struct{ *shared }
