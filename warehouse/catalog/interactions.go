package catalog

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// InteractionStore keeps uploads and conversations: their metadata,
// ingest claims and leases, statuses, and the commits that record what
// ingest and import wrote to the lake.
type InteractionStore struct {
	handle
	// The manifest and reviews kept in memory, dropped when a commit
	// changes them.
	manifest *orgCache[[]LakeFile]
	reviews  *orgCache[*reviewIndex]
}

// Media types and statuses of interactions (CONTRACT §4).
const (
	MediaAudio         = "Audio"
	MediaChat          = "Chat"
	MediaProcessedChat = "ProcessedChat"

	StatusProcessing      = "Processing"
	StatusReadyToSample   = "ReadyToSample"
	StatusSampled         = "Sampled"
	StatusFailedToProcess = "FailedToProcess"
)

// Interaction is an upload, or a chat found in an uploaded archive.
type Interaction struct {
	ID                 string
	OrgID              string
	UploadID           *string
	MediaType          string
	Status             string
	FileName           string
	OrigFileName       *string
	StagedKey          *string
	FileSizeBytes      int64
	SHA256             *string
	ArrivedOn          time.Time
	InteractionDate    *time.Time
	HierarchyNodeID    *string
	AgentID            *string
	AgentCode          *string
	AgentFirstName     *string
	AgentLastName      *string
	CustomerName       *string
	Phone              *string
	Email              *string
	CallDirection      *string
	ClientCallID       *string
	LocaleID           int
	ExtendedMetadata   map[string]string
	CallDurationMillis *int64
	ChatMessageCount   *int
	Source             string // file | signedUrl | text
	ModifiedOn         time.Time
	ProcessFailures    []ProcessFailure
	// LakeRunID is the run whose lake rows are the conversation's current
	// ones (nil until it is processed).
	LakeRunID *string
	// PublicID is the id the client chose for it (TextMedia Id): what the
	// API shows and takes in place of ID. nil: ID is public.
	PublicID *string
}

// Public is the id the API shows for the interaction.
func (it Interaction) Public() string {
	if it.PublicID != nil {
		return *it.PublicID
	}
	return it.ID
}

// ProcessFailure is one reason processing an interaction failed.
type ProcessFailure struct {
	ID        string
	Message   string
	CreatedOn time.Time
}

const interactionColumns = `id, org_id, upload_id, media_type, status, file_name, orig_file_name, staged_key,
	file_size_bytes, sha256, arrived_on, interaction_date, hierarchy_node_id, agent_id, agent_code, agent_first_name,
	agent_last_name, customer_name, phone, email, call_direction, client_call_id, locale_id, extended_metadata,
	call_duration_millis, chat_message_count, source, modified_on, lake_run_id, public_id`

func scanInteraction(s scanner) (Interaction, error) {
	var it Interaction
	var ext string
	err := s.Scan(&it.ID, &it.OrgID, &it.UploadID, &it.MediaType, &it.Status, &it.FileName, &it.OrigFileName, &it.StagedKey,
		&it.FileSizeBytes, &it.SHA256, &it.ArrivedOn, &it.InteractionDate, &it.HierarchyNodeID, &it.AgentID, &it.AgentCode,
		&it.AgentFirstName, &it.AgentLastName, &it.CustomerName, &it.Phone, &it.Email, &it.CallDirection, &it.ClientCallID,
		&it.LocaleID, &ext, &it.CallDurationMillis, &it.ChatMessageCount, &it.Source, &it.ModifiedOn, &it.LakeRunID, &it.PublicID)
	if err != nil {
		return it, err
	}
	it.ArrivedOn, it.ModifiedOn = it.ArrivedOn.UTC(), it.ModifiedOn.UTC()
	if it.InteractionDate != nil {
		t := it.InteractionDate.UTC()
		it.InteractionDate = &t
	}
	it.ExtendedMetadata = map[string]string{}
	json.Unmarshal([]byte(ext), &it.ExtendedMetadata)
	return it, nil
}

// ErrFileNameTaken: the organization has an interaction with that file name.
var ErrFileNameTaken = errors.New("an interaction with this file name already exists")

// FileNameOwner is the interaction of the organization that has the file
// name, by the id the API shows for it ("" when none has): the early,
// cheap check an upload makes before staging (the unique index on insert
// is what decides), and what a duplicate's answer names.
func (c *InteractionStore) FileNameOwner(ctx context.Context, orgID, fileName string) (string, error) {
	var id string
	err := c.db.QueryRowContext(ctx, `SELECT coalesce(public_id, id) FROM interactions WHERE org_id = ? AND file_name = ?`, orgID, fileName).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// CreateInteraction writes a new interaction; a file name the organization
// has already gives ErrFileNameTaken. With applyNodeToAgent, the
// interaction's hierarchy node joins its agent's nodes in the same
// transaction.
func (c *InteractionStore) CreateInteraction(ctx context.Context, it Interaction, applyNodeToAgent bool) error {
	ext, _ := json.Marshal(orEmpty(it.ExtendedMetadata))
	return c.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO interactions (`+interactionColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.ID, it.OrgID, it.UploadID, it.MediaType, it.Status, it.FileName, it.OrigFileName, it.StagedKey,
			it.FileSizeBytes, it.SHA256, stamp(it.ArrivedOn), stampPtr(it.InteractionDate), it.HierarchyNodeID, it.AgentID, it.AgentCode,
			it.AgentFirstName, it.AgentLastName, it.CustomerName, it.Phone, it.Email, it.CallDirection, it.ClientCallID,
			it.LocaleID, string(ext), it.CallDurationMillis, it.ChatMessageCount, it.Source, stamp(it.ModifiedOn), it.LakeRunID, it.PublicID)
		switch {
		case isUniqueViolation(err) && strings.Contains(err.Error(), "public_id"):
			return ErrIDTaken
		case isUniqueViolation(err):
			return ErrFileNameTaken
		}
		if err != nil || !applyNodeToAgent || it.AgentID == nil || it.HierarchyNodeID == nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE agents SET osms = json_insert(osms, '$[#]', ?), modified_on = ?
			WHERE org_id = ? AND id = ? AND ? NOT IN (SELECT value FROM json_each(osms))`,
			*it.HierarchyNodeID, now(), it.OrgID, *it.AgentID, *it.HierarchyNodeID)
		return err
	})
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Interaction returns one interaction of the organization with its failures.
func (c *InteractionStore) Interaction(ctx context.Context, orgID, id string) (Interaction, error) {
	list, err := c.Interactions(ctx, orgID, InteractionFilter{IDs: []string{id}, ExactIDs: true, Limit: 1})
	if err != nil {
		return Interaction{}, err
	}
	if len(list) == 0 {
		return Interaction{}, ErrNotFound
	}
	return list[0], nil
}

// InteractionFilter selects interactions; zero fields do not filter.
type InteractionFilter struct {
	ArrivedFrom, ArrivedTo *time.Time // inclusive bounds on arrivedOn
	MediaType              string
	Status                 string
	Statuses               []string // any of them
	ClientCallIDs          []string
	AgentCode              string   // the agent's code, any casing
	NodeIDs                []string // hierarchy nodes (the caller expands descendants)
	IDs                    []string // interactions, and the chats of archives among them
	ExactIDs               bool     // IDs without the chats of archives
	AfterID                string   // keyset cursor
	// Newest lists by id from the last (the newest, ids growing with
	// time), from before BeforeID when it is set.
	Newest   bool
	BeforeID string
	Limit    int
	Scope    Scope // what the caller may read; nil: all
}

// Interactions lists an organization's interactions by id.
func (c *InteractionStore) Interactions(ctx context.Context, orgID string, f InteractionFilter) ([]Interaction, error) {
	where, args := interactionWhere(orgID, f)
	var cursor []string
	var cursorArgs []any
	if f.AfterID != "" {
		cursor, cursorArgs = append(cursor, "id > ?"), append(cursorArgs, f.AfterID)
	}
	if f.BeforeID != "" {
		cursor, cursorArgs = append(cursor, "id < ?"), append(cursorArgs, f.BeforeID)
	}
	where, args = append(where, cursor...), append(args, cursorArgs...)
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	order := "id"
	if f.Newest {
		order = "id DESC"
	}
	// Clipped appends: the pages below add to args without writing into
	// one another's arrays.
	page := func(where []string, args []any) ([]Interaction, error) {
		return c.interactionsWhere(ctx, strings.Join(where, " AND "), order, append(slices.Clip(args), limit))
	}
	if f.ArrivedFrom != nil || f.ArrivedTo != nil {
		// The engine finds a window's interactions by arrival, and sorts
		// them all by id for a page: a page of a wide window costs as much
		// as the window. Ids grow with arrival, so the page is nearly
		// always among the next ids after the cursor: their range is
		// looked at first (by id, in order), and the page is theirs when
		// it holds all of it (or holds every id left).
		edge, bound := "max", "id <= ?"
		if f.Newest {
			edge, bound = "min", "id >= ?"
		}
		var ids int
		var last sql.NullString
		err := c.db.QueryRowContext(ctx, `SELECT count(*), `+edge+`(id) FROM (SELECT id FROM interactions WHERE `+
			strings.Join(append([]string{"org_id = ?"}, cursor...), " AND ")+` ORDER BY `+order+` LIMIT ?) AS next`,
			append(append([]any{orgID}, cursorArgs...), idsLookedAtFirst*limit)...).Scan(&ids, &last)
		if err != nil {
			return nil, err
		}
		if !last.Valid { // no id left
			return []Interaction{}, nil
		}
		out, err := page(append(slices.Clip(where), bound), append(slices.Clip(args), last.String))
		if err != nil {
			return nil, err
		}
		if len(out) == limit || ids < idsLookedAtFirst*limit {
			return out, c.attachFailures(ctx, orgID, out)
		}
		// The whole window then: its ids sorted alone (a sort of whole
		// rows copies every column of each), the page's rows read by key.
		where = []string{`id IN (SELECT id FROM interactions WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ` + order + ` LIMIT ?)`}
		args = append(args, limit)
	}
	out, err := page(where, args)
	if err != nil {
		return nil, err
	}
	return out, c.attachFailures(ctx, orgID, out)
}

// idsLookedAtFirst is how many ids after a window's cursor are looked at
// for a page before the whole window, in pages: a page of a window of most
// arrivals is among them, and looking costs a few milliseconds when it is
// not.
const idsLookedAtFirst = 4

// interactionsWhere reads the interactions where selects, in order, up to
// the limit (the last of args).
func (c *InteractionStore) interactionsWhere(ctx context.Context, where, order string, args []any) ([]Interaction, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT `+interactionColumns+` FROM interactions WHERE `+where+` ORDER BY `+order+` LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Interaction{}
	for rows.Next() {
		it, err := scanInteraction(rows)
		if err != nil {
			return nil, err
		}
		it.ProcessFailures = []ProcessFailure{}
		out = append(out, it)
	}
	return out, rows.Err()
}

// CountInteractions counts the interactions a filter lists, all pages
// together (its cursor and limit aside).
func (c *InteractionStore) CountInteractions(ctx context.Context, orgID string, f InteractionFilter) (int64, error) {
	where, args := interactionWhere(orgID, f)
	var n int64
	err := c.db.QueryRowContext(ctx, `SELECT count(*) FROM interactions WHERE `+strings.Join(where, " AND "), args...).Scan(&n)
	return n, err
}

// interactionWhere is the condition of a filter, its cursor aside.
func interactionWhere(orgID string, f InteractionFilter) ([]string, []any) {
	where := []string{"org_id = ?"}
	args := []any{orgID}
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if f.ArrivedFrom != nil {
		add("arrived_on >= ?", stamp(*f.ArrivedFrom))
	}
	if f.ArrivedTo != nil {
		add("arrived_on <= ?", stamp(*f.ArrivedTo))
	}
	if f.MediaType != "" {
		add("media_type = ?", f.MediaType)
	}
	if f.Status != "" {
		add("status = ?", f.Status)
	}
	if f.Statuses != nil {
		add(anyOf("status"), list(f.Statuses))
	}
	if f.ClientCallIDs != nil {
		add(anyOf("client_call_id"), list(f.ClientCallIDs))
	}
	if f.NodeIDs != nil {
		add(anyOf("hierarchy_node_id"), list(f.NodeIDs))
	}
	if f.AgentCode != "" {
		add("lower(agent_code) = lower(?)", f.AgentCode)
	}
	if f.IDs != nil {
		if f.ExactIDs {
			add(anyOf("id"), list(f.IDs))
		} else {
			// One list of keys (the ids and their archives' chats), so that
			// each is a key lookup rather than a scan of the organization.
			add(`id IN (SELECT value FROM json_each(?) UNION SELECT id FROM interactions WHERE `+anyOf("upload_id")+`)`,
				list(f.IDs), list(f.IDs))
		}
	}
	if f.Scope != nil {
		cond, scopeArgs := f.Scope.where("media_type", "hierarchy_node_id")
		add(cond, scopeArgs...)
	}
	return where, args
}

// InteractionIDs are the records' ids, in their order.
func InteractionIDs(its []Interaction) []string {
	ids := make([]string, len(its))
	for i, it := range its {
		ids[i] = it.ID
	}
	return ids
}

func (c *InteractionStore) attachFailures(ctx context.Context, orgID string, its []Interaction) error {
	if len(its) == 0 {
		return nil
	}
	byID := make(map[string]int, len(its))
	for i, it := range its {
		byID[it.ID] = i
	}
	ids := InteractionIDs(its)
	rows, err := c.db.QueryContext(ctx, `SELECT interaction_id, id, message, created_on FROM process_failures
		WHERE org_id = ? AND `+anyOf("interaction_id")+` ORDER BY created_on, id`, orgID, list(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var itID string
		var pf ProcessFailure
		if err := rows.Scan(&itID, &pf.ID, &pf.Message, &pf.CreatedOn); err != nil {
			return err
		}
		pf.CreatedOn = pf.CreatedOn.UTC()
		i := byID[itID]
		its[i].ProcessFailures = append(its[i].ProcessFailures, pf)
	}
	return rows.Err()
}

// InteractionPatch is PATCH /Metadata/{id}: nil fields stay; Extended merges.
type InteractionPatch struct {
	InteractionDate *time.Time
	Phone           *string
	CallDirection   *string
	ClientCallID    *string
	LocaleID        *int
	Extended        map[string]string
}

// PatchInteraction changes the editable metadata of an interaction.
func (c *InteractionStore) PatchInteraction(ctx context.Context, orgID, id string, p InteractionPatch) (Interaction, error) {
	err := c.inTx(ctx, func(tx *sql.Tx) error {
		it, err := scanInteraction(tx.QueryRowContext(ctx, `SELECT `+interactionColumns+` FROM interactions WHERE org_id = ? AND id = ?`, orgID, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if p.InteractionDate != nil {
			it.InteractionDate = p.InteractionDate
		}
		if p.Phone != nil {
			it.Phone = p.Phone
		}
		if p.CallDirection != nil {
			it.CallDirection = p.CallDirection
		}
		if p.ClientCallID != nil {
			it.ClientCallID = p.ClientCallID
		}
		set(&it.LocaleID, p.LocaleID)
		for k, v := range p.Extended {
			it.ExtendedMetadata[k] = v
		}
		ext, _ := json.Marshal(it.ExtendedMetadata)
		// A processed conversation's lake row keeps the date it was written
		// with: lake_interaction_on remembers it while the catalog's differs
		// (SET expressions read the row as it was before the update).
		when := it.ArrivedOn
		if it.InteractionDate != nil {
			when = *it.InteractionDate
		}
		_, err = tx.ExecContext(ctx, `UPDATE interactions SET interaction_date = ?, phone = ?, call_direction = ?,
			client_call_id = ?, locale_id = ?, extended_metadata = ?, modified_on = ?,
			lake_interaction_on = CASE WHEN lake_run_id IS NULL THEN NULL
				ELSE nullif(coalesce(lake_interaction_on, interaction_date, arrived_on), ?) END
			WHERE org_id = ? AND id = ?`,
			stampPtr(it.InteractionDate), it.Phone, it.CallDirection, it.ClientCallID, it.LocaleID, string(ext), now(), stamp(when), orgID, id)
		return err
	})
	if err != nil {
		return Interaction{}, err
	}
	return c.Interaction(ctx, orgID, id)
}

// NewID makes a UUIDv7 id: time-ordered, so id order is arrival order.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// TakenFileNames are those of names that interactions of the organization
// already have, leaving out the chats of the uploads in except (an
// archive processed again replaces its own chats).
func (c *InteractionStore) TakenFileNames(ctx context.Context, orgID string, names, except []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	return queryStrings(ctx, c.db, `SELECT file_name FROM interactions
		WHERE org_id = ? AND `+anyOf("file_name")+` AND (upload_id IS NULL OR upload_id NOT IN (SELECT value FROM json_each(?)))`,
		orgID, list(names), list(except))
}
