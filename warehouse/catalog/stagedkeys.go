package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StagedKey is where an upload's file is staged in object storage:
// staging/{org}/{yyyy}/{mm}/{dd}/{id}/{fileName}.
func StagedKey(orgID string, arrived time.Time, id, fileName string) string {
	return fmt.Sprintf("staging/%s/%s/%s/%s", orgID, arrived.UTC().Format("2006/01/02"), id, fileName)
}

// stagedKeyID is the upload id a staged key holds, if it is one.
func stagedKeyID(key string) (string, bool) {
	parts := strings.SplitN(key, "/", 7)
	if len(parts) < 7 || parts[0] != "staging" {
		return "", false
	}
	return parts[5], true
}

// NamedStagedKeys says which of the staged keys a record still names: an
// upload's staged file (pending, or an original kept), or one whose
// deletion is recorded and still to come. Any other staged object is an
// orphan (its upload was never recorded: a process killed between the
// two). A key not of StagedKey's form is taken as named: nothing here
// knows it.
func (c *InteractionStore) NamedStagedKeys(ctx context.Context, keys []string) (map[string]bool, error) {
	var ids []string
	named := map[string]bool{}
	for _, k := range keys {
		if id, ok := stagedKeyID(k); ok {
			ids = append(ids, id)
		} else {
			named[k] = true
		}
	}
	if len(ids) == 0 {
		return named, nil
	}
	found, err := queryStrings(ctx, c.db, `SELECT staged_key FROM interactions WHERE `+anyOf("id")+` AND staged_key IS NOT NULL
		UNION SELECT staged_key FROM staged_deletions WHERE `+anyOf("interaction_id"), list(ids), list(ids))
	for _, k := range found {
		named[k] = true
	}
	return named, err
}
