package leaf

import (
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Opening a store parses every leaf's header, and encoding/json spends most
// of a leaf's parse on it (reflection, and a string allocated per field).
// decodeHeader reads the headers Encode writes — a known shape — directly,
// and shares the strings that repeat from leaf to leaf (scope, trust,
// status, project, agent, session...) instead of keeping a copy in each.
// Anything else (an escape in a string, an unknown or repeated field, a
// null, a tombstone...) makes it give up, and json.Unmarshal decodes the
// header as before: the fast path only ever agrees with it (FuzzDecodeHeader
// checks that).

// decodeHeader decodes data into h and reports whether it could; when it
// could not, h is unspecified and the caller decodes with encoding/json.
func decodeHeader(data []byte, h *Header) bool {
	d := hdecoder{data: data}
	var seen uint32
	ok := d.object(func(key []byte) bool {
		bit, field := headerField(key)
		if bit == 0 || seen&bit != 0 {
			return false // unknown (perhaps a newer version's) or repeated
		}
		seen |= bit
		return field(&d, h)
	})
	if !ok {
		return false
	}
	d.space()
	return d.off == len(d.data)
}

// Header fields by key; each has a bit, to catch a key given twice (json
// would merge the two, which the fast path does not try to imitate).
func headerField(key []byte) (uint32, func(*hdecoder, *Header) bool) {
	switch string(key) {
	case "id":
		return 1 << 0, func(d *hdecoder, h *Header) bool { return d.str(&h.ID, false) }
	case "valid_from":
		return 1 << 1, func(d *hdecoder, h *Header) bool { return d.date(&h.ValidFrom) }
	case "recorded_at":
		return 1 << 2, func(d *hdecoder, h *Header) bool { return d.date(&h.RecordedAt) }
	case "scope":
		return 1 << 3, func(d *hdecoder, h *Header) bool { return d.str(&h.Scope, true) }
	case "project":
		return 1 << 4, func(d *hdecoder, h *Header) bool { return d.str(&h.Project, true) }
	case "origin_project":
		return 1 << 5, func(d *hdecoder, h *Header) bool { return d.str(&h.OriginProject, true) }
	case "title":
		return 1 << 6, func(d *hdecoder, h *Header) bool { return d.str(&h.Title, false) }
	case "source":
		return 1 << 7, func(d *hdecoder, h *Header) bool { return d.source(&h.Source) }
	case "agent":
		return 1 << 8, func(d *hdecoder, h *Header) bool { return d.agent(&h.Agent) }
	case "session":
		return 1 << 9, func(d *hdecoder, h *Header) bool { return d.str(&h.Session, true) }
	case "trust":
		return 1 << 10, func(d *hdecoder, h *Header) bool { return d.str(&h.Trust, true) }
	case "status":
		return 1 << 11, func(d *hdecoder, h *Header) bool { return d.str(&h.Status, true) }
	case "domain":
		return 1 << 12, func(d *hdecoder, h *Header) bool { return d.str(&h.Domain, true) }
	case "tags":
		return 1 << 13, func(d *hdecoder, h *Header) bool { return d.tags(&h.Tags) }
	case "review_note":
		return 1 << 14, func(d *hdecoder, h *Header) bool { return d.str(&h.ReviewNote, true) }
	case "corrects":
		return 1 << 15, func(d *hdecoder, h *Header) bool { return d.links(&h.Corrects) }
	case "corrected_by":
		return 1 << 16, func(d *hdecoder, h *Header) bool { return d.links(&h.CorrectedBy) }
	case "checksum":
		return 1 << 17, func(d *hdecoder, h *Header) bool { return d.str(&h.Checksum, false) }
	}
	return 0, nil // "tombstone" too: rare, and left to encoding/json
}

// hdecoder reads JSON from data[off:].
type hdecoder struct {
	data []byte
	off  int
}

func (d *hdecoder) space() {
	for d.off < len(d.data) {
		switch d.data[d.off] {
		case ' ', '\t', '\n', '\r':
			d.off++
		default:
			return
		}
	}
}

// consume consumes c, after white space.
func (d *hdecoder) consume(c byte) bool {
	d.space()
	if d.off < len(d.data) && d.data[d.off] == c {
		d.off++
		return true
	}
	return false
}

// object reads an object, calling member for each key with the decoder
// positioned at the key's value.
func (d *hdecoder) object(member func(key []byte) bool) bool {
	if !d.consume('{') {
		return false
	}
	if d.consume('}') {
		return true
	}
	for {
		key, ok := d.raw()
		if !ok || !d.consume(':') || !member(key) {
			return false
		}
		if d.consume('}') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// array reads an array, calling elem with the decoder at each element.
func (d *hdecoder) array(elem func() bool) bool {
	if !d.consume('[') {
		return false
	}
	if d.consume(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.consume(']') {
			return true
		}
		if !d.consume(',') {
			return false
		}
	}
}

// raw reads a string with nothing to unescape and returns its bytes (not
// copied). A backslash, a control character or invalid UTF-8 — which json
// would unescape, reject or replace — is left to encoding/json.
func (d *hdecoder) raw() ([]byte, bool) {
	if !d.consume('"') {
		return nil, false
	}
	start := d.off
	ascii := true
	for ; d.off < len(d.data); d.off++ {
		switch c := d.data[d.off]; {
		case c == '"':
			s := d.data[start:d.off]
			d.off++
			return s, ascii || utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// str reads a string into s, shared with other leaves when shared is set
// (the values that repeat from leaf to leaf).
func (d *hdecoder) str(s *string, shared bool) bool {
	b, ok := d.raw()
	if !ok {
		return false
	}
	if shared {
		*s = intern(b)
	} else {
		*s = string(b)
	}
	return true
}

// date reads a date exactly as time.Time's UnmarshalJSON does (it is what
// json.Unmarshal calls).
func (d *hdecoder) date(t *time.Time) bool {
	d.space()
	start := d.off
	if _, ok := d.raw(); !ok {
		return false
	}
	return t.UnmarshalJSON(d.data[start:d.off]) == nil
}

// number reads a non-negative integer written plainly; any other number is
// left to encoding/json.
func (d *hdecoder) number(n *int) bool {
	d.space()
	start := d.off
	for d.off < len(d.data) && d.data[d.off] >= '0' && d.data[d.off] <= '9' {
		d.off++
	}
	digits := d.data[start:d.off]
	if len(digits) == 0 || len(digits) > 15 || len(digits) > 1 && digits[0] == '0' {
		return false
	}
	if d.off < len(d.data) {
		switch d.data[d.off] {
		case '.', 'e', 'E':
			return false
		}
	}
	v, err := strconv.Atoi(string(digits))
	*n = v
	return err == nil
}

func (d *hdecoder) boolean(b *bool) bool {
	d.space()
	rest := d.data[d.off:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		*b, d.off = true, d.off+4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		*b, d.off = false, d.off+5
	default:
		return false
	}
	return true
}

func (d *hdecoder) agent(a *Agent) bool {
	var seen uint8
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return once(&seen, 1) && d.str(&a.Name, true)
		case "version":
			return once(&seen, 2) && d.str(&a.Version, true)
		}
		return false
	})
}

func (d *hdecoder) source(p **Source) bool {
	s := new(Source)
	var seen uint8
	ok := d.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return once(&seen, 1<<0) && d.str(&s.Name, true)
		case "digest":
			return once(&seen, 1<<1) && d.str(&s.Digest, true)
		case "part":
			return once(&seen, 1<<2) && d.number(&s.Part)
		case "parts":
			return once(&seen, 1<<3) && d.number(&s.Parts)
		case "type":
			return once(&seen, 1<<4) && d.str(&s.Type, true)
		case "context":
			return once(&seen, 1<<5) && d.str(&s.Context, true)
		case "oversized":
			return once(&seen, 1<<6) && d.boolean(&s.Oversized)
		}
		return false
	})
	*p = s
	return ok
}

func (d *hdecoder) tags(tags *[]string) bool {
	out := []string{} // as json decodes [], not nil
	ok := d.array(func() bool {
		var t string
		if !d.str(&t, true) {
			return false
		}
		out = append(out, t)
		return true
	})
	*tags = out
	return ok
}

func (d *hdecoder) links(links *[]Link) bool {
	out := []Link{}
	ok := d.array(func() bool {
		var l Link
		var seen uint8
		if !d.object(func(key []byte) bool {
			switch string(key) {
			case "id":
				return once(&seen, 1) && d.str(&l.ID, false)
			case "at":
				return once(&seen, 2) && d.date(&l.At)
			}
			return false
		}) {
			return false
		}
		out = append(out, l)
		return true
	})
	*links = out
	return ok
}

// once marks bit in seen and reports whether it was not marked yet.
func once(seen *uint8, bit uint8) bool {
	if *seen&bit != 0 {
		return false
	}
	*seen |= bit
	return true
}

// The strings shared between leaves. The table is a cache, not a registry:
// it forgets everything when it fills up, so it stays small whatever a
// long-running daemon parses, and a string it forgot is only copied again.
const (
	internMaxLen     = 256
	internMaxEntries = 1 << 14
)

var interned struct {
	sync.Mutex
	m map[string]string
}

// intern returns b as a string, the same string for equal bytes while the
// table remembers it.
func intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > internMaxLen {
		return string(b)
	}
	interned.Lock()
	defer interned.Unlock()
	if s, ok := interned.m[string(b)]; ok { // no copy made to look up
		return s
	}
	return remember(string(b))
}

// internString is intern for a string already made.
func internString(s string) string {
	if s == "" || len(s) > internMaxLen {
		return s
	}
	interned.Lock()
	defer interned.Unlock()
	if t, ok := interned.m[s]; ok {
		return t
	}
	return remember(s)
}

// remember adds s to the table. Callers hold its lock.
func remember(s string) string {
	if interned.m == nil || len(interned.m) >= internMaxEntries {
		interned.m = make(map[string]string)
	}
	interned.m[s] = s
	return s
}

// share makes a header decoded by encoding/json share its repeating
// strings as decodeHeader's do.
func share(h *Header) {
	for _, s := range []*string{&h.Scope, &h.Project, &h.OriginProject, &h.Agent.Name, &h.Agent.Version,
		&h.Session, &h.Trust, &h.Status, &h.Domain, &h.ReviewNote} {
		*s = internString(*s)
	}
	for i := range h.Tags {
		h.Tags[i] = internString(h.Tags[i])
	}
	if src := h.Source; src != nil {
		src.Name, src.Digest = internString(src.Name), internString(src.Digest)
		src.Type, src.Context = internString(src.Type), internString(src.Context)
	}
	if tb := h.Tombstone; tb != nil {
		tb.By.Name, tb.By.Version = internString(tb.By.Name), internString(tb.By.Version)
		tb.Session = internString(tb.Session)
	}
}
