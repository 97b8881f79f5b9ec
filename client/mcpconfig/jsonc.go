package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// The JSON editor. Claude Code's ~/.claude.json and opencode's config are
// edited as text, not decoded and re-encoded: re-encoding would reorder
// keys, reformat the file and drop opencode's JSONC comments. The document
// is parsed once for the byte span of every value, the one member that is
// ours is inserted, replaced or deleted in place, and everything else keeps
// its bytes. A semantic check afterwards proves nothing else changed.

// jsonDoc is a parsed JSON-with-comments document.
type jsonDoc struct {
	src []byte
	// std is src with comments and trailing commas blanked to spaces
	// (newlines kept): plain JSON with the same offsets, which
	// encoding/json can read.
	std    []byte
	commas []int  // offsets of the blanked trailing commas
	root   *jnode // nil for a document of only blanks and comments
	unit   string // one level of indentation, as the file uses it
}

type jnode struct {
	start, end int  // the value's span in src
	kind       byte // '{', '[' or 0 for a scalar
	members    []jmember
}

type jmember struct {
	key      string
	keyStart int
	val      *jnode
}

func (n *jnode) member(key string) (int, *jmember) {
	for i := range n.members {
		if n.members[i].key == key {
			return i, &n.members[i]
		}
	}
	return -1, nil
}

// syntaxError locates a parse failure.
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.line, e.col, e.msg)
}

func position(src []byte, off int) (line, col int) {
	off = min(off, len(src))
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	return line, off - bytes.LastIndexByte(src[:off], '\n')
}

func parseJSONC(src []byte) (*jsonDoc, error) {
	d := &jsonDoc{src: src, std: bytes.Clone(src), unit: "  "}
	if err := d.blank(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(d.std)) == 0 {
		return d, nil
	}
	// encoding/json is the judge of validity (escapes, numbers, nesting);
	// the parser below only needs spans.
	var v any
	if err := json.Unmarshal(d.std, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			l, c := position(src, int(se.Offset)-1)
			return nil, &syntaxError{l, c, strings.TrimPrefix(se.Error(), "json: ")}
		}
		return nil, &syntaxError{1, 1, err.Error()}
	}
	p := &jparser{b: d.std}
	p.ws()
	root, err := p.value()
	if err != nil {
		l, c := position(src, p.i)
		return nil, &syntaxError{l, c, err.Error()}
	}
	d.root = root
	if root.kind == '{' && len(root.members) > 0 {
		if ind, ok := lineIndent(src, root.members[0].keyStart); ok && ind != "" {
			d.unit = ind
		}
	}
	return d, nil
}

// blank fills d.std and d.commas.
func (d *jsonDoc) blank() error {
	b := d.std
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := bytes.Index(b[i+2:], []byte("*/"))
			if end < 0 {
				l, c := position(d.src, i)
				return &syntaxError{l, c, "unterminated /* comment"}
			}
			for j := i; j < i+2+end+2; j++ {
				if b[j] != '\n' {
					b[j] = ' '
				}
			}
			i += 2 + end + 1
		}
	}
	// A comma followed (past blanks) by a closing bracket is JSONC's
	// trailing comma.
	inString := false
	for i := 0; i < len(b); i++ {
		switch {
		case inString && b[i] == '\\':
			i++
		case b[i] == '"':
			inString = !inString
		case !inString && b[i] == ',':
			j := i + 1
			for j < len(b) && isJSONSpace(b[j]) {
				j++
			}
			if j < len(b) && (b[j] == '}' || b[j] == ']') {
				b[i] = ' '
				d.commas = append(d.commas, i)
			}
		}
	}
	return nil
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jparser records spans over already-validated plain JSON.
type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) && isJSONSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *jparser) value() (*jnode, error) {
	if p.i >= len(p.b) {
		return nil, errors.New("unexpected end of input")
	}
	n := &jnode{start: p.i}
	switch c := p.b[p.i]; c {
	case '{', '[':
		n.kind = c
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		p.i++
		for {
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == close {
				p.i++
				break
			}
			if c == '{' {
				ks := p.i
				if err := p.string(); err != nil {
					return nil, err
				}
				var key string
				if err := json.Unmarshal(p.b[ks:p.i], &key); err != nil {
					return nil, err
				}
				p.ws()
				p.i++ // ':'
				p.ws()
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, jmember{key: key, keyStart: ks, val: v})
			} else if _, err := p.value(); err != nil {
				return nil, err
			}
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
			}
		}
	case '"':
		if err := p.string(); err != nil {
			return nil, err
		}
	default:
		for p.i < len(p.b) && !isJSONSpace(p.b[p.i]) && !strings.ContainsRune(",]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n, nil
}

func (p *jparser) string() error {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return errors.New("expected a string")
	}
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return nil
		}
	}
	return errors.New("unterminated string")
}

// lineIndent returns the blanks before off on its line, if only blanks
// precede it there.
func lineIndent(src []byte, off int) (string, bool) {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	pre := src[ls:off]
	if len(bytes.Trim(pre, " \t")) != 0 {
		return "", false
	}
	return string(pre), true
}

// decode returns the document as encoding/json sees it.
func (d *jsonDoc) decode() (any, error) {
	if d.root == nil {
		return nil, nil
	}
	var v any
	err := json.Unmarshal(d.std, &v)
	return v, err
}

// lookup returns the node at path, or nil.
func (d *jsonDoc) lookup(path ...string) *jnode {
	n := d.root
	for _, k := range path {
		if n == nil || n.kind != '{' {
			return nil
		}
		_, m := n.member(k)
		if m == nil {
			return nil
		}
		n = m.val
	}
	return n
}

// valueOf decodes the node's value.
func (d *jsonDoc) valueOf(n *jnode) any {
	var v any
	json.Unmarshal(d.std[n.start:n.end], &v)
	return v
}

// object is a JSON object that keeps its keys in order.
type object []field

type field struct {
	key string
	val any
}

// render writes v as JSON in the file's style: each member on its own line,
// indented from base by unit, like JSON.stringify(v, null, unit).
func render(v any, base, unit string) string {
	var b strings.Builder
	var walk func(v any, ind string)
	// members writes n members between the brackets, one a line; "{}" or
	// "[]" when there are none.
	members := func(open, close byte, n int, ind string, member func(i int)) {
		b.WriteByte(open)
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + ind + unit)
			member(i)
		}
		if n > 0 {
			b.WriteString("\n" + ind)
		}
		b.WriteByte(close)
	}
	walk = func(v any, ind string) {
		switch v := v.(type) {
		case object:
			members('{', '}', len(v), ind, func(i int) {
				b.WriteString(jsonString(v[i].key) + ": ")
				walk(v[i].val, ind+unit)
			})
		case map[string]string:
			o := object{}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				o = append(o, field{k, v[k]})
			}
			walk(o, ind)
		case []string:
			members('[', ']', len(v), ind, func(i int) { b.WriteString(jsonString(v[i])) })
		case []object:
			members('[', ']', len(v), ind, func(i int) { walk(v[i], ind+unit) })
		case string:
			b.WriteString(jsonString(v))
		case bool, int:
			fmt.Fprint(&b, v)
		default:
			panic(fmt.Sprintf("render: unexpected %T", v))
		}
	}
	walk(v, base)
	return b.String()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// set returns the document with the member at path set to v, creating the
// objects on the way. Only the bytes of that member change.
func (d *jsonDoc) set(path []string, v any) ([]byte, error) {
	if d.root == nil {
		// Nothing but blanks or comments: the new document follows them.
		var nested any = v
		for i := len(path) - 1; i >= 0; i-- {
			nested = object{{path[i], nested}}
		}
		out := bytes.TrimRight(d.src, " \t\r\n")
		if len(out) > 0 {
			out = append(out, '\n')
		}
		return append(append(out, render(nested, "", d.unit)...), '\n'), nil
	}
	obj := d.root
	for i, key := range path {
		if obj.kind != '{' {
			return nil, fmt.Errorf("%s is not a JSON object", describePath(path[:i]))
		}
		_, m := obj.member(key)
		if m == nil {
			var nested any = v
			for j := len(path) - 1; j > i; j-- {
				nested = object{{path[j], nested}}
			}
			return d.insert(obj, key, nested), nil
		}
		if i == len(path)-1 {
			ind, _ := lineIndent(d.src, m.keyStart)
			return splice(d.src, m.val.start, m.val.end, render(v, ind, d.unit)), nil
		}
		obj = m.val
	}
	panic("unreachable")
}

func describePath(path []string) string {
	if len(path) == 0 {
		return "the top level"
	}
	return `"` + strings.Join(path, ".") + `"`
}

// insert adds key: v as the last member of obj.
func (d *jsonDoc) insert(obj *jnode, key string, v any) []byte {
	if len(obj.members) == 0 {
		objInd := indentOfLine(d.src, obj.start)
		ind := objInd + d.unit
		text := "\n" + ind + jsonString(key) + ": " + render(v, ind, d.unit)
		if len(bytes.TrimSpace(d.src[obj.start+1:obj.end-1])) == 0 {
			return splice(d.src, obj.start+1, obj.end-1, text+"\n"+objInd)
		}
		// Only comments inside: put the member before them.
		return splice(d.src, obj.start+1, obj.start+1, text)
	}
	last := obj.members[len(obj.members)-1]
	sep, ind, member := "\n", "", ""
	if i, ok := lineIndent(d.src, obj.members[0].keyStart); ok {
		ind = i
		member = jsonString(key) + ": " + render(v, ind, d.unit)
	} else {
		// A one-line object stays on its line.
		sep = " "
		member = jsonString(key) + ": " + compact(v)
	}
	for _, c := range d.commas {
		if c > last.val.end && c < obj.end {
			// Keep the file's trailing-comma style.
			return splice(d.src, c+1, c+1, sep+ind+member+",")
		}
	}
	return splice(d.src, last.val.end, last.val.end, ","+sep+ind+member)
}

// indentOfLine returns the blanks that open the line holding off.
func indentOfLine(src []byte, off int) string {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	line := src[ls:off]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

func compact(v any) string {
	var b bytes.Buffer
	json.Compact(&b, []byte(render(v, "", "  ")))
	return b.String()
}

// remove returns the document without the member at path (which must
// exist). It is the exact inverse of insert for a member insert appended.
func (d *jsonDoc) remove(path []string) []byte {
	parent := d.lookup(path[:len(path)-1]...)
	i, m := parent.member(path[len(path)-1])
	switch {
	case len(parent.members) == 1:
		inner := string(d.src[parent.start+1 : m.keyStart])
		rest := string(d.src[m.val.end : parent.end-1])
		if strings.TrimSpace(inner) == "" && strings.Trim(rest, " \t\r\n,") == "" {
			return splice(d.src, parent.start+1, parent.end-1, "")
		}
		return splice(d.src, m.keyStart, m.val.end, "")
	case i == len(parent.members)-1:
		// From the end of the previous member's value: its comma, the
		// blanks and this member.
		return splice(d.src, parent.members[i-1].val.end, m.val.end, "")
	default:
		return splice(d.src, m.keyStart, parent.members[i+1].keyStart, "")
	}
}

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// sameExcept reports whether two documents are equal once the member at
// path is removed from both: the proof that an edit touched nothing else.
func sameExcept(a, b any, path []string) bool {
	return reflect.DeepEqual(without(a, path), without(b, path))
}

// without returns a copy of v without the member at path, and without the
// objects on the path that this leaves empty (install creates them; an
// empty one means the same to every client as a missing one).
func without(v any, path []string) any {
	m, ok := v.(map[string]any)
	if v == nil {
		m, ok = map[string]any{}, true
	}
	if !ok || len(path) == 0 {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	if len(path) == 1 {
		delete(out, path[0])
		return out
	}
	if sub, ok := out[path[0]].(map[string]any); ok {
		if rest := without(sub, path[1:]).(map[string]any); len(rest) > 0 {
			out[path[0]] = rest
		} else {
			delete(out, path[0])
		}
	}
	return out
}
