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
func (t *Tree) Outline(depth int) []Line {
	var out []Line
	var walk func(s ChildSummary, group string, layer, d int)
	walk = func(s ChildSummary, group string, layer, d int) {
		l := Line{Depth: d, ID: s.ID, Layer: layer, Group: group, Title: s.Title}
		b := t.branches[s.ID]
		if b != nil {
			for _, c := range b.Children {
				if t.gone[c.ID] {
					l.Gone++
				} else {
					l.Children++
				}
			}
		}
		out = append(out, l)
		if b == nil || (depth > 0 && d+1 >= depth) {
			return
		}
		for _, c := range b.Children {
			if t.gone[c.ID] {
				continue
			}
			cl := 0
			if cb := t.branches[c.ID]; cb != nil {
				cl = cb.Layer
			}
			walk(c, group, cl, d+1)
		}
	}
	for _, e := range t.rootOrder() {
		walk(e.sum, e.group, e.layer, 0)
	}
	return out
}
