package qa

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/earshot/earshot/internal/app/access"
	"github.com/earshot/earshot/internal/invalid"
	"github.com/earshot/earshot/warehouse/catalog"
)

// People finds the users and agents an assignment names
// (catalog.PeopleStore).
type People interface {
	UserByName(ctx context.Context, orgID, userName string) (catalog.User, error)
	User(ctx context.Context, orgID, id string) (catalog.User, error)
	Agent(ctx context.Context, orgID, id string) (catalog.Agent, error)
}

// NewAssignment is an evaluation to assign: of a form, on a conversation
// (its own id), to an analyst (a user name or id), for the conversation's
// agent or another (AgentID).
type NewAssignment struct {
	FormID, ConversationID, Analyst string
	AgentID                         *string
}

// Assign creates an evaluation, NotStarted, if the actor manages
// evaluations. Each reference that names nothing the actor may reach is
// an *invalid.Field naming it, in the order formId, conversationId (which
// must be processed), analyst, agentId.
func (s Service) Assign(ctx context.Context, actor access.Actor, in NewAssignment) (catalog.Evaluation, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return catalog.Evaluation{}, err
	}
	org := actor.OrgID
	err := validID(in.FormID)
	if err == nil {
		_, err = s.Evaluations.Form(ctx, org, in.FormID)
	}
	if err != nil {
		return catalog.Evaluation{}, named(err, "formId", "is not an evaluation form of your organization.")
	}
	it, err := s.Conversations.Interaction(ctx, org, in.ConversationID)
	if err == nil && !actor.Scope().Allows(it.MediaType, it.HierarchyNodeID) {
		err = catalog.ErrNotFound
	}
	if err != nil {
		return catalog.Evaluation{}, named(err, "conversationId", "is not a conversation of your organization.")
	}
	if it.LakeRunID == nil {
		return catalog.Evaluation{}, &invalid.Field{Path: "conversationId", Message: "is not processed yet: a conversation is evaluated once it is ReadyToSample or Sampled.",
			Detail: "The conversation is not processed yet; assign its evaluation once it is ReadyToSample or Sampled."}
	}
	user, err := s.ActiveUser(ctx, org, in.Analyst)
	if err != nil {
		return catalog.Evaluation{}, named(err, "analyst", "is not an active user of your organization (give a user id or user name).")
	}
	agent := it.AgentID
	if in.AgentID != nil {
		if _, err := s.People.Agent(ctx, org, *in.AgentID); err != nil {
			return catalog.Evaluation{}, named(err, "agentId", "is not an agent of your organization.")
		}
		agent = in.AgentID
	}
	return s.Evaluations.CreateEvaluation(ctx, catalog.Evaluation{OrgID: org, FormID: in.FormID, ConversationID: it.ID, AgentID: agent, AnalystID: user.ID})
}

// Choices are what an assignment may name: the organization's active
// forms and active users, to whom manages evaluations.
func (s Service) Choices(ctx context.Context, actor access.Actor) ([]catalog.EvaluationForm, []catalog.User, error) {
	if err := actor.Require(access.ManageEvaluations); err != nil {
		return nil, nil, err
	}
	all, err := s.Evaluations.Forms(ctx, actor.OrgID)
	if err != nil {
		return nil, nil, err
	}
	var forms []catalog.EvaluationForm
	for _, f := range all {
		if f.IsActive {
			forms = append(forms, f)
		}
	}
	active := true
	users, err := s.Users.Users(ctx, actor.OrgID, &active)
	return forms, users, err
}

// ActiveUser is the organization's active user with that user name or
// id (ErrNotFound when none is).
func (s Service) ActiveUser(ctx context.Context, org, key string) (catalog.User, error) {
	u, err := s.People.UserByName(ctx, org, key)
	if _, parseErr := uuid.Parse(key); errors.Is(err, catalog.ErrNotFound) && parseErr == nil {
		u, err = s.People.User(ctx, org, key)
	}
	if err == nil && u.Disabled {
		err = catalog.ErrNotFound
	}
	return u, err
}

// named is a reference that names nothing as a mistake of its field;
// other errors stay as they are.
func named(err error, field, message string) error {
	if errors.Is(err, catalog.ErrNotFound) {
		return &invalid.Field{Path: field, Message: message, Detail: "The " + field + " " + message}
	}
	return err
}
