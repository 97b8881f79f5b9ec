package tree

import (
	"fmt"
	"strings"
)

// Line is one item of the outline `ihmt tree` prints.
type Line struct {
	Depth    int    // 0 for a root item
	ID       string // branch or leaf id
	Layer    int    // 0 for a leaf
	Group    string
	Title    string
	Children int // a branch's live children
	Gone     int // a branch's children removed since it was written
}

// String renders the line indented two spaces per depth: the title, and for
// a branch "[layer 1, 8 items]", for a root item its group.
func (l Line) String() string {
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", l.Depth))
	title := l.Title
	if title == "" {
		title = "(untitled)"
	}
	b.WriteString(title)
	if l.Layer > 0 {
		fmt.Fprintf(&b, " [layer %d, %d items", l.Layer, l.Children)
		if l.Gone > 0 {
			fmt.Fprintf(&b, ", %d removed", l.Gone)
		}
		b.WriteString("]")
	}
	if l.Depth == 0 && l.Group != "" {
		fmt.Fprintf(&b, " (%s)", l.Group)
	}
	return b.String()
}

// Outline lists the tree from the root down, depth-first: root items by
// group, then biggest layer first, then arrival; a branch's children in
// their order. depth limits the levels listed (1: the root items only);
// depth ≤ 0 lists everything. Removed leaves are left out and counted on
// their branch.
//
// The children's titles are in their branch's file, so Outline reads the
// file of every branch it opens (all of them at depth ≤ 0): it is a
// person's command, and the tree keeps no summaries in memory for it. A
// branch whose file is damaged lists its children untitled.
func (t *Tree) Outline(depth int) []Line {
	var out []Line
	var walk func(id, title, group string, layer, d int)
	walk = func(id, title, group string, layer, d int) {
		l := Line{Depth: d, ID: id, Layer: layer, Group: group, Title: title}
		_, n := t.node(id)
		var children []string
		if n != nil {
			children = n.children()
			for _, c := range children {
				if t.gone[c] {
					l.Gone++
				} else {
					l.Children++
				}
			}
		}
		out = append(out, l)
		if n == nil || (depth > 0 && d+1 >= depth) {
			return
		}
		var titles []string
		if b, err := t.readBranch(id); err == nil {
			for _, c := range b.Children {
				titles = append(titles, c.Title)
			}
		}
		for i, c := range children {
			if t.gone[c] {
				continue
			}
			cl, title := 0, ""
			if _, cn := t.node(c); cn != nil {
				cl = int(cn.layer)
			}
			if i < len(titles) {
				title = titles[i]
			}
			walk(c, title, group, cl, d+1)
		}
	}
	for _, e := range t.rootOrder() {
		walk(e.sum.ID, e.sum.Title, e.group, e.layer, 0)
	}
	return out
}
