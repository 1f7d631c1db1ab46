package catalog

// PeopleStore keeps an organization's people and how they are organized:
// roles, users, the hierarchy (kept in memory between changes) and agents.
type PeopleStore struct {
	handle
	trees *orgCache[*Tree]
}
