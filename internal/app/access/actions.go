// Package access is Earshot's one permission model: what each action needs
// (a role permission and, on a conversation, a hierarchy access level), and
// the actor that asks — the organization itself, or one of its users
// through the console or an API client acting for the user. Every front
// door builds an Actor and every use case asks it; none decides alone.
package access

import (
	"slices"

	"github.com/earshot/earshot/warehouse/catalog"
)

// Level is a user's hierarchy access on a node (the vendor's /UserHierarchy
// access levels), ordered: each level allows what the one below does.
type Level int

// The access levels. NoLevel is a node the user has no grant on.
const (
	NoLevel Level = iota
	View          // reads the node's conversations
	Edit          // also changes them, their results and their evaluations
	Manage        // also changes other users' grants on the node
)

// LevelOf is a stored level's name as a Level (NoLevel for another
// name): catalog.AccessLevels lists them in the order of the constants.
func LevelOf(name string) Level { return Level(slices.Index(catalog.AccessLevels, name) + 1) }

func (l Level) String() string {
	if l == NoLevel {
		return "none"
	}
	return catalog.AccessLevels[l-1]
}

// Action is one thing an actor may ask to do.
type Action struct {
	// Doing names the action in the refusal's sentence ("Your role does
	// not allow " + Doing + ".").
	Doing string
	// Permission is the role permission it needs.
	Permission string
	// Level is the hierarchy access it needs on the conversation it acts
	// on; NoLevel for an action on no conversation.
	Level Level
}

// The actions, each with what it needs (CONTRACT §11). This table is the
// permission model: the doors name an action, never a permission.
var (
	ReadConversations = Action{"reading conversations", "conversations.read", View}
	Upload            = Action{"uploading conversations", "conversations.upload", NoLevel}
	EditConversations = Action{"changing conversation metadata", "conversations.edit", Edit}
	ReadResults       = Action{"reading results", "results.read", View}
	RecordReviews     = Action{"recording reviews", "results.review", Edit}
	// PerformEvaluations answers, submits and advances only what is
	// assigned to the actor (Actor.RequireAssigned).
	PerformEvaluations = Action{"answering evaluations and workflow levels", "evaluations.perform", Edit}
	ManageEvaluations  = Action{"managing evaluation forms, assignments and workflows", "evaluations.manage", NoLevel}
	ReadClassifiers    = Action{"reading classifiers", "classifiers.read", NoLevel}
	ManageClassifiers  = Action{"changing classifiers", "classifiers.manage", NoLevel}
	ReadAgents         = Action{"reading agents", "agents.read", NoLevel}
	ManageAgents       = Action{"changing agents", "agents.manage", NoLevel}
	ReadHierarchy      = Action{"reading the hierarchy", "hierarchy.read", NoLevel}
	ManageHierarchy    = Action{"changing the hierarchy", "hierarchy.manage", NoLevel}
	ReadUsers          = Action{"reading users", "users.read", NoLevel}
	ManageUsers        = Action{"changing users", "users.manage", NoLevel}
	QueryLake          = Action{"querying the lake", "lake.query", NoLevel}
	RunJobs            = Action{"running jobs", "jobs.run", NoLevel}
	AdministerOrg      = Action{"administering the organization", "organization.admin", NoLevel}
)

// Actions is every action, in the table's order.
var Actions = []Action{ReadConversations, Upload, EditConversations, ReadResults, RecordReviews,
	PerformEvaluations, ManageEvaluations, ReadClassifiers, ManageClassifiers, ReadAgents, ManageAgents,
	ReadHierarchy, ManageHierarchy, ReadUsers, ManageUsers, QueryLake, RunJobs, AdministerOrg}
