package tree

import (
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// The structure holds ids as numbers. A leaf id is 16 lower-case hex digits
// and a branch id "b" and 16 more, so each spells a 64-bit number: 8
// bytes, where the string costs a 16-byte header and a 16- or 24-byte
// allocation, for each of the children and parents the tree holds: about
// two per leaf. Which kind a number is comes from where it is held
// (see node.leaf); ids are spelled out again where they leave the
// structure, and a number spells exactly the id it was read from.

// hexDigits spell numbers as ids do: lower case.
const hexDigits = "0123456789abcdef"

// hexNum returns the number 16 lower-case hex digits spell; false for
// anything else (leaf.IsID's shape).
func hexNum(s string) (uint64, bool) {
	if len(s) != 16 {
		return 0, false
	}
	var v uint64
	for i := range 16 {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint64(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// leafNum returns leaf id's number; false when id is not a leaf id.
func leafNum(id string) (uint64, bool) { return hexNum(id) }

// branchNum returns branch id's number; false when id is not a branch id.
func branchNum(id string) (uint64, bool) {
	if len(id) != 17 || id[0] != 'b' {
		return 0, false
	}
	return hexNum(id[1:])
}

// putHex spells v in b's 16 bytes.
func putHex(b []byte, v uint64) {
	for i := 15; i >= 0; i-- {
		b[i] = hexDigits[v&15]
		v >>= 4
	}
}

// leafString is the leaf id of number v.
func leafString(v uint64) string {
	var b [16]byte
	putHex(b[:], v)
	return string(b[:])
}

// branchString is the branch id of number v.
func branchString(v uint64) string {
	var b [17]byte
	b[0] = 'b'
	putHex(b[1:], v)
	return string(b[:])
}

// node is what the tree holds of a committed branch: where its file is and
// which children it lists, in order, and the branch listing it. The
// summaries stay in the file.
type node struct {
	group string
	kids  []uint64 // the children's ids as numbers, in order
	// mixed is nil unless the branch lists both leaves and branches (never
	// written so, but a catalog edited by hand may say so, and Open keeps
	// what is consistent): then it says which children are leaves.
	mixed     *[]bool
	parent    uint64 // the number of the branch listing this one, if hasParent
	layer     int32
	hasParent bool
}

// newNode is the node of a branch of the given layer and group over
// children, ids each a leaf's or a branch's (checked by the caller).
func newNode(layer int, group string, children []string) *node {
	n := &node{group: group, layer: int32(layer), kids: make([]uint64, len(children))}
	var leaves []bool
	for i, c := range children {
		v, isLeaf := leafNum(c)
		if !isLeaf {
			v, _ = branchNum(c)
		}
		n.kids[i] = v
		if isLeaf != (layer == 1) && leaves == nil {
			leaves = make([]bool, len(children))
			for j := range i {
				leaves[j] = leaf.IsID(children[j])
			}
		}
		if leaves != nil {
			leaves[i] = isLeaf
		}
	}
	if leaves != nil {
		n.mixed = &leaves
	}
	return n
}

// leaf reports whether child i is a leaf: at layer 1 every child is, above
// none is, but in a mixed branch.
func (n *node) leaf(i int) bool {
	if n.mixed != nil {
		return (*n.mixed)[i]
	}
	return n.layer == 1
}

// child returns child i's id.
func (n *node) child(i int) string {
	if n.leaf(i) {
		return leafString(n.kids[i])
	}
	return branchString(n.kids[i])
}

// children returns the children's ids, in order. They share one
// allocation: descents, Outline and the catalog spell out every child of
// the branches they walk.
func (n *node) children() []string {
	var b strings.Builder
	b.Grow(17 * len(n.kids))
	var buf [17]byte
	for i, v := range n.kids {
		if n.leaf(i) {
			putHex(buf[:16], v)
			b.Write(buf[:16])
		} else {
			buf[0] = 'b'
			putHex(buf[1:], v)
			b.Write(buf[:])
		}
	}
	all := b.String()
	out := make([]string, len(n.kids))
	start := 0
	for i := range n.kids {
		end := start + 16
		if !n.leaf(i) {
			end++
		}
		out[i] = all[start:end]
		start = end
	}
	return out
}

// isChild reports whether id is child i's id, spelled exactly so.
func (n *node) isChild(i int, id string) bool {
	v, ok := leafNum(id)
	if !n.leaf(i) {
		v, ok = branchNum(id)
	}
	return ok && v == n.kids[i]
}

// node returns branch id's number and node; nil when the tree holds no
// such branch.
func (t *Tree) node(id string) (uint64, *node) {
	v, ok := branchNum(id)
	if !ok {
		return 0, nil
	}
	return v, t.branches[v]
}

// parentOf returns the number of the branch listing item id (a leaf or a
// branch); false when none does.
func (t *Tree) parentOf(id string) (uint64, bool) {
	if v, ok := leafNum(id); ok {
		p, ok := t.parent[v]
		return p, ok
	}
	if _, n := t.node(id); n != nil && n.hasParent {
		return n.parent, true
	}
	return 0, false
}

// filed reports whether leaf id is listed by a branch (removed or not).
func (t *Tree) filed(id string) bool {
	v, ok := leafNum(id)
	if !ok {
		return false
	}
	_, ok = t.parent[v]
	return ok
}
