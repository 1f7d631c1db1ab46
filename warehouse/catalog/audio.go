package catalog

import (
	"context"
	"database/sql"
	"errors"
)

// AudioSettings are an organization's speech settings.
type AudioSettings struct {
	OrgID string `json:"orgId"`
	// AgentChannel is the stereo channel (0 or 1) the agent is on; the
	// customer is on the other.
	AgentChannel int `json:"agentChannel"`
	// LanguageModel and Dictionary, when set, replace the engine's
	// default ones (paths readable by the ingest workers).
	LanguageModel string `json:"languageModel,omitempty"`
	Dictionary    string `json:"dictionary,omitempty"`
}

// AudioSettings returns an organization's speech settings (the defaults
// when none were set).
func (c *SettingStore) AudioSettings(ctx context.Context, orgID string) (AudioSettings, error) {
	s := AudioSettings{OrgID: orgID}
	var lm, dict sql.NullString
	err := c.db.QueryRowContext(ctx, `SELECT agent_channel, language_model, dictionary FROM org_audio_settings WHERE org_id = ?`, orgID).
		Scan(&s.AgentChannel, &lm, &dict)
	if errors.Is(err, sql.ErrNoRows) {
		return s, nil
	}
	s.LanguageModel, s.Dictionary = lm.String, dict.String
	return s, err
}

// SetAudioSettings replaces an organization's speech settings.
func (c *SettingStore) SetAudioSettings(ctx context.Context, s AudioSettings) error {
	if s.AgentChannel != 0 && s.AgentChannel != 1 {
		return fieldErr("agentChannel", ErrInvalid, "The agent channel is 0 (left) or 1 (right).")
	}
	if (s.LanguageModel == "") != (s.Dictionary == "") {
		return fieldErr("languageModel", ErrInvalid, "A language model and its dictionary are given together.")
	}
	return c.setOrgSetting(ctx, s.OrgID, `INSERT INTO org_audio_settings (org_id, agent_channel, language_model, dictionary, modified_on)
		VALUES (?, ?, nullif(?, ''), nullif(?, ''), ?)
		ON CONFLICT (org_id) DO UPDATE SET agent_channel = excluded.agent_channel, language_model = excluded.language_model,
			dictionary = excluded.dictionary, modified_on = excluded.modified_on`, s.OrgID, s.AgentChannel, s.LanguageModel, s.Dictionary, now())
}
