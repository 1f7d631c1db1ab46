package catalog

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkHierarchyLookup measures the lookup uploads and queries make
// (a node by code, then it and its descendants) on a 3-level hierarchy of
// 1,111 nodes: from the cached tree, beside the baseline of reading the
// hierarchy from the catalog each time.
func BenchmarkHierarchyLookup(b *testing.B) {
	ctx := context.Background()
	c := openTest(b)
	org, _ := c.Orgs.CreateOrganization(ctx, "acme")
	parents := []string{""}
	for level := range 3 {
		var next []string
		for _, p := range parents {
			for i := range 10 {
				n, err := c.People.CreateNode(ctx, org.ID, NodeInput{Name: ptr(fmt.Sprint(level, "-", i)), Parent: ptr(p), Code: ptr(fmt.Sprintf("%s/%d", p, i))})
				if err != nil {
					b.Fatal(err)
				}
				next = append(next, n.ID)
			}
		}
		parents = next
	}
	tree, _ := c.People.Hierarchy(ctx, org.ID)
	region := tree.Children("")[3]
	code := *region.Code
	lookup := func(t *Tree) {
		n, ok := t.ByCode(code)
		if !ok || len(t.Descendants(n.ID)) != 111 {
			b.Fatalf("lookup of %s failed", code)
		}
	}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			t, err := c.People.Hierarchy(ctx, org.ID)
			if err != nil {
				b.Fatal(err)
			}
			lookup(t)
		}
	})
	b.Run("baseline-read-catalog", func(b *testing.B) {
		for b.Loop() {
			nodes, err := loadNodes(ctx, c.db, org.ID)
			if err != nil {
				b.Fatal(err)
			}
			lookup(NewTree(nodes))
		}
	})
}
