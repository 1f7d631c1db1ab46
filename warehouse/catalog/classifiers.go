package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// ClassifierStore keeps classifier definitions and their versions (kept in
// memory between changes).
type ClassifierStore struct {
	handle
	classifiers *orgCache[[]Classifier]
}

// Classifier is the current version of an organization's classifier.
type Classifier struct {
	ID, OrgID    string
	Name         string
	Description  string
	Type         string // Classifier, Core AI Model, LLM Model, Metadata
	CategoryName string // Skills, Topics, Process, SE Suite
	Reportable   bool
	Groupable    bool
	IsActive     bool
	Version      int
	Definition   json.RawMessage
	CreatedOn    time.Time
	ModifiedOn   time.Time
}

// ClassifierInput is a create (every field) or an update (nil fields are
// left as they are). The caller validates the definition.
type ClassifierInput struct {
	Name, Description, Type, CategoryName *string
	Reportable, Groupable, IsActive       *bool
	Definition                            json.RawMessage
}

// ClassifierFilter selects classifiers; empty lists select all.
type ClassifierFilter struct {
	Categories, Types []string
	LastID            string // page after this id
	Limit             int
	ActiveOnly        bool
}

const classifierColumns = `id, org_id, name, description, classifier_type, category_name, reportable, groupable,
	is_active, version, definition, created_on, modified_on`

func scanClassifier(s scanner) (Classifier, error) {
	var c Classifier
	var def string
	err := s.Scan(&c.ID, &c.OrgID, &c.Name, &c.Description, &c.Type, &c.CategoryName, &c.Reportable, &c.Groupable,
		&c.IsActive, &c.Version, &def, &c.CreatedOn, &c.ModifiedOn)
	c.Definition = json.RawMessage(def)
	c.CreatedOn, c.ModifiedOn = c.CreatedOn.UTC(), c.ModifiedOn.UTC()
	return c, err
}

// Classifiers lists an organization's classifiers (not deleted) by id.
// The list is kept in memory between changes: the query API checks every
// request's models against it.
func (c *ClassifierStore) Classifiers(ctx context.Context, orgID string, f ClassifierFilter) ([]Classifier, error) {
	all, err := c.classifiers.load(orgID, func() ([]Classifier, error) { return loadClassifiers(ctx, c.db, orgID) })
	if err != nil {
		return nil, err
	}
	categories, types := lower(f.Categories), lower(f.Types)
	out := []Classifier{}
	for _, cl := range all {
		switch {
		case cl.ID <= f.LastID,
			len(categories) > 0 && !slices.Contains(categories, strings.ToLower(cl.CategoryName)),
			len(types) > 0 && !slices.Contains(types, strings.ToLower(cl.Type)),
			f.ActiveOnly && !cl.IsActive:
			continue
		}
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
		out = append(out, cl)
	}
	return out, nil
}

// loadClassifiers reads an organization's classifiers (not deleted) by id.
func loadClassifiers(ctx context.Context, q querier, orgID string) ([]Classifier, error) {
	return queryAll(ctx, q, scanClassifier, `SELECT `+classifierColumns+` FROM classifiers
		WHERE org_id = ? AND deleted_on IS NULL ORDER BY id`, orgID)
}

// Classifier returns one classifier (not deleted) of the organization.
func (c *ClassifierStore) Classifier(ctx context.Context, orgID, id string) (Classifier, error) {
	return classifierByID(ctx, c.db, orgID, id)
}

func classifierByID(ctx context.Context, q querier, orgID, id string) (Classifier, error) {
	cl, err := scanClassifier(q.QueryRowContext(ctx, `SELECT `+classifierColumns+` FROM classifiers
		WHERE org_id = ? AND id = ? AND deleted_on IS NULL`, orgID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Classifier{}, ErrNotFound
	}
	return cl, err
}

// CreateClassifier stores version 1 of a new classifier.
func (c *ClassifierStore) CreateClassifier(ctx context.Context, orgID string, in ClassifierInput) (Classifier, error) {
	t := now()
	cl := Classifier{ID: NewID(), OrgID: orgID, Version: 1, IsActive: true, CreatedOn: t, ModifiedOn: t}
	in.apply(&cl)
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		if err := writeClassifier(ctx, tx, cl, true); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainClassifiers, orgID)
	})
	c.classifiers.invalidate(orgID)
	return cl, err
}

// UpdateClassifier changes a classifier; every change is a new version.
func (c *ClassifierStore) UpdateClassifier(ctx context.Context, orgID, id string, in ClassifierInput) (Classifier, error) {
	var cl Classifier
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if cl, err = classifierByID(ctx, tx, orgID, id); err != nil {
			return err
		}
		in.apply(&cl)
		cl.Version++
		cl.ModifiedOn = now()
		if err := writeClassifier(ctx, tx, cl, false); err != nil {
			return err
		}
		return c.changed(ctx, tx, domainClassifiers, orgID)
	})
	c.classifiers.invalidate(orgID)
	return cl, err
}

// DeleteClassifier removes a classifier from use; its versions stay for
// the results they produced.
func (c *ClassifierStore) DeleteClassifier(ctx context.Context, orgID, id string) error {
	defer c.classifiers.invalidate(orgID)
	return c.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE classifiers SET deleted_on = ?, is_active = false
			WHERE org_id = ? AND id = ? AND deleted_on IS NULL`, now(), orgID, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return c.changed(ctx, tx, domainClassifiers, orgID)
	})
}

// ClassifierVersion is one version's definition as it was written.
func (c *ClassifierStore) ClassifierVersion(ctx context.Context, orgID, id string, version int) (json.RawMessage, error) {
	var def string
	err := c.db.QueryRowContext(ctx, `SELECT definition FROM classifier_versions WHERE org_id = ? AND classifier_id = ? AND version = ?`,
		orgID, id, version).Scan(&def)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return json.RawMessage(def), err
}

func (in ClassifierInput) apply(cl *Classifier) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&cl.Name, in.Name)
	set(&cl.Description, in.Description)
	set(&cl.Type, in.Type)
	set(&cl.CategoryName, in.CategoryName)
	setBool(&cl.Reportable, in.Reportable)
	setBool(&cl.Groupable, in.Groupable)
	setBool(&cl.IsActive, in.IsActive)
	if in.Definition != nil {
		cl.Definition = in.Definition
	}
}

func writeClassifier(ctx context.Context, tx *sql.Tx, cl Classifier, create bool) error {
	var err error
	if create {
		_, err = tx.ExecContext(ctx, `INSERT INTO classifiers (`+classifierColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			cl.ID, cl.OrgID, cl.Name, cl.Description, cl.Type, cl.CategoryName, cl.Reportable, cl.Groupable, cl.IsActive,
			cl.Version, string(cl.Definition), cl.CreatedOn, cl.ModifiedOn)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE classifiers SET name = ?, description = ?, classifier_type = ?, category_name = ?,
			reportable = ?, groupable = ?, is_active = ?, version = ?, definition = ?, modified_on = ? WHERE id = ?`,
			cl.Name, cl.Description, cl.Type, cl.CategoryName, cl.Reportable, cl.Groupable, cl.IsActive, cl.Version,
			string(cl.Definition), cl.ModifiedOn, cl.ID)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO classifier_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		cl.ID, cl.Version, cl.OrgID, cl.Name, cl.Type, cl.CategoryName, string(cl.Definition), cl.ModifiedOn)
	return err
}

// lower lower-cases a filter list (compared with lower-cased columns).
func lower(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.ToLower(s)
	}
	return out
}

// PutByName creates each classifier, or gives the organization's
// classifier of that name (in any casing) a new version.
func (c *ClassifierStore) PutByName(ctx context.Context, orgID string, inputs []ClassifierInput) ([]Classifier, error) {
	existing, err := c.Classifiers(ctx, orgID, ClassifierFilter{})
	if err != nil {
		return nil, err
	}
	byName := map[string]string{}
	for _, cl := range existing {
		byName[strings.ToLower(cl.Name)] = cl.ID
	}
	var out []Classifier
	for _, in := range inputs {
		var cl Classifier
		if id, ok := byName[strings.ToLower(*in.Name)]; ok {
			cl, err = c.UpdateClassifier(ctx, orgID, id, in)
		} else {
			cl, err = c.CreateClassifier(ctx, orgID, in)
		}
		if err != nil {
			return out, err
		}
		out = append(out, cl)
	}
	return out, nil
}
