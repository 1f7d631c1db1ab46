package catalog

import (
	"sort"
	"strings"
)

// Tree is one organization's hierarchy in memory: the lookups the API and
// the pipeline make on every upload and query (node by id, node by any of
// its codes, a node and everything below it) without a database round trip.
// A Tree is immutable; the catalog builds a new one after every change.
type Tree struct {
	nodes    map[string]*Node
	children map[string][]string // parent id ("" for the top level) → child ids, by name then id
	byCode   map[string]string   // lower-cased code or extra code → node id
}

// NewTree indexes nodes. A node whose parent is missing counts as top level.
func NewTree(nodes []Node) *Tree {
	t := &Tree{nodes: map[string]*Node{}, children: map[string][]string{}, byCode: map[string]string{}}
	for i := range nodes {
		n := &nodes[i]
		t.nodes[n.ID] = n
		if n.Code != nil {
			t.byCode[strings.ToLower(*n.Code)] = n.ID
		}
		for _, code := range n.HierarchyCodes {
			t.byCode[strings.ToLower(code)] = n.ID
		}
	}
	for _, n := range t.nodes {
		t.children[t.parentOf(n)] = append(t.children[t.parentOf(n)], n.ID)
	}
	for _, ids := range t.children {
		sort.Slice(ids, func(i, j int) bool {
			a, b := t.nodes[ids[i]], t.nodes[ids[j]]
			if a.Name != b.Name {
				return a.Name < b.Name
			}
			return a.ID < b.ID
		})
	}
	return t
}

func (t *Tree) parentOf(n *Node) string {
	if n.ParentID == nil {
		return ""
	}
	if _, ok := t.nodes[*n.ParentID]; !ok {
		return ""
	}
	return *n.ParentID
}

// CodesUpward are the codes (main and extra) of a node and of every node
// above it: a conversation of the node is "under" each of them.
func (t *Tree) CodesUpward(id string) []string {
	var out []string
	for seen := 0; id != "" && seen <= len(t.nodes); seen++ {
		n, ok := t.nodes[id]
		if !ok {
			break
		}
		if n.Code != nil {
			out = append(out, *n.Code)
		}
		out = append(out, n.HierarchyCodes...)
		id = t.parentOf(n)
	}
	return out
}

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.nodes) }

// Node finds a node by id.
func (t *Tree) Node(id string) (Node, bool) {
	n, ok := t.nodes[id]
	if !ok {
		return Node{}, false
	}
	return *n, true
}

// ByCode finds a node by its code or one of its hierarchyCodes, ignoring case.
func (t *Tree) ByCode(code string) (Node, bool) {
	id, ok := t.byCode[strings.ToLower(code)]
	if !ok {
		return Node{}, false
	}
	return t.Node(id)
}

// Resolve finds the node that upload metadata names by id, by code, or
// by both. ok is false when a given key names no node or the two name
// different nodes; node is nil when neither key is given.
func (t *Tree) Resolve(id, code *string) (node *Node, ok bool) {
	var byID, byCode *Node
	if id != nil {
		n, found := t.Node(*id)
		if !found {
			return nil, false
		}
		byID = &n
	}
	if code != nil {
		n, found := t.ByCode(*code)
		if !found {
			return nil, false
		}
		byCode = &n
	}
	if byID != nil && byCode != nil && byID.ID != byCode.ID {
		return nil, false
	}
	if byID == nil {
		return byCode, true
	}
	return byID, true
}

// Children lists the nodes right below id ("" for the top level).
func (t *Tree) Children(id string) []Node {
	out := []Node{}
	for _, c := range t.children[id] {
		out = append(out, *t.nodes[c])
	}
	return out
}

// Descendants returns id and the ids of every node below it, depth first.
func (t *Tree) Descendants(id string) []string {
	if _, ok := t.nodes[id]; !ok {
		return nil
	}
	out := []string{}
	stack := []string{id}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, cur)
		kids := t.children[cur]
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return out
}

// Depth is 0 for a top-level node, 1 below it, and so on.
func (t *Tree) Depth(id string) int {
	d := 0
	for n := t.nodes[id]; n != nil && t.parentOf(n) != ""; n = t.nodes[*n.ParentID] {
		d++
	}
	return d
}

// IsWithin tells whether node is ancestor itself or below it.
func (t *Tree) IsWithin(node, ancestor string) bool {
	for n := t.nodes[node]; n != nil; {
		if n.ID == ancestor {
			return true
		}
		p := t.parentOf(n)
		if p == "" {
			return false
		}
		n = t.nodes[p]
	}
	return false
}
