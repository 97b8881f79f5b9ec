// Package leaf defines a memory as it lives on disk: one UTF-8 text file
// whose JSON header, between "<<<IHMT-META" and "IHMT-META>>>" lines,
// describes it fully, followed by the text exactly as saved.
//
//	<<<IHMT-META
//	{
//	  "id": "3f2a9c1b7d4e5f60",
//	  "valid_from": "2024-03-11T00:00:00Z",
//	  ...
//	}
//	IHMT-META>>>
//	I live in Madrid.
//
// A leaf is self-describing so that the store can be rebuilt from the leaf
// files alone, and readable so that a person can grep, back up and put the
// memory under git. The body starts right after the closing marker's newline
// and runs to the end of the file; nothing is appended, so the text comes
// back byte for byte.
package leaf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

const (
	openMarker  = "<<<IHMT-META\n"
	closeMarker = "\nIHMT-META>>>\n"
)

// Scope values.
const (
	ScopeGlobal  = "global"
	ScopeProject = "project"
)

// Trust values.
const (
	TrustAsserted = "asserted"
	TrustVerified = "verified"
	TrustPending  = "pending"
	TrustRejected = "rejected"
)

// Lifecycle statuses.
const (
	// StatusActive: the memory answers searches.
	StatusActive = "active"
	// StatusForgotten: tombstoned; it answers no search, and saving the same
	// text again is refused. The text is kept for audit.
	StatusForgotten = "forgotten"
	// StatusPurged: forgotten, and its text removed by a person. The header
	// (checksum included) stays as the record of what was there.
	StatusPurged = "purged"
	// StatusSuperseded: a leaf of an older version of a document that was
	// ingested again changed; kept as history, answering no search.
	StatusSuperseded = "superseded"
)

// Source places a leaf in the document it was cut from.
type Source struct {
	// Name is the document's absolute path; empty for a long save.
	Name string `json:"name,omitempty"`
	// Digest is "sha256:<hex>" of the whole document.
	Digest string `json:"digest"`
	// Part is this leaf's position from 1; Parts how many there are.
	Part  int `json:"part"`
	Parts int `json:"parts"`
	// Type is how the document was split: code, narrative, temporal...
	Type string `json:"type,omitempty"`
	// Context is, for a member of a class too big for one leaf, the
	// enclosing header: it travels here, not in the text, so the leaves
	// still concatenate to the document.
	Context string `json:"context,omitempty"`
	// Oversized: one logical block bigger than the leaf size, stored whole.
	Oversized bool `json:"oversized,omitempty"`
}

// Link is one end of a correction: the other memory's id and when the
// memory learned of the correction (record time).
type Link struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
}

// Probable is an inferred supersession between this memory and memory ID.
// The later-dated of the two is the successor: this one, unless Newer says
// ID is (a memory saved late about an older value becomes history).
type Probable struct {
	ID    string `json:"id"`
	Newer bool   `json:"newer,omitempty"`
	// Confidence is how sure the inference was, from 0 to 1.
	Confidence float64 `json:"confidence"`
	// Concepts and Terms are what the two memories share that the inference
	// rests on (pkg/lexicon's concept names, stemmed words): a question
	// touching none of them is not about what changed.
	Concepts []string `json:"concepts,omitempty"`
	Terms    []string `json:"terms,omitempty"`
}

// Tombstone records who forgot a memory, when and why.
type Tombstone struct {
	At       time.Time  `json:"at"`
	By       Agent      `json:"by"`
	Session  string     `json:"session,omitempty"`
	Reason   string     `json:"reason"`
	PurgedAt *time.Time `json:"purged_at,omitempty"`
}

// Agent names the writer of a memory.
type Agent struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Header is everything a leaf says about itself.
type Header struct {
	ID string `json:"id"`
	// ValidFrom is when what the text says became true.
	ValidFrom time.Time `json:"valid_from"`
	// RecordedAt is when the memory learned it; written once.
	RecordedAt time.Time `json:"recorded_at"`
	Scope      string    `json:"scope"`
	Project    string    `json:"project,omitempty"`
	// OriginProject is, for a global memory, the project the agent was in
	// when it saved it: provenance, not scope.
	OriginProject string `json:"origin_project,omitempty"`
	// Title is a short title: a function's name, a heading, first words.
	Title string `json:"title,omitempty"`
	// Source is set on the leaves of an ingested document or a long save.
	Source *Source `json:"source,omitempty"`
	// Agent and Session are who wrote the memory.
	Agent   Agent  `json:"agent"`
	Session string `json:"session,omitempty"`
	// Trust is one of the Trust values, Status one of the lifecycle
	// statuses.
	Trust  string `json:"trust"`
	Status string `json:"status"`
	// Domain places the memory in the outline ("software.go", "personal");
	// Tags are the caller's labels, lower-cased.
	Domain string   `json:"domain,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	// ReviewNote says why the memory waits for review, or what the
	// reviewer noted.
	ReviewNote string `json:"review_note,omitempty"`
	// Corrects lists the memories this one supersedes by an explicit link;
	// CorrectedBy the memories that supersede it.
	Corrects    []Link `json:"corrects,omitempty"`
	CorrectedBy []Link `json:"corrected_by,omitempty"`
	// Probable lists the supersessions the store inferred when this memory
	// was saved: the same thing said about the same subject, with another
	// value, at another date. Unlike Corrects they are not certain, so a
	// reader is told "probably", and a person can undo them.
	Probable []Probable `json:"probable,omitempty"`
	// Tombstone is set once the memory is forgotten.
	Tombstone *Tombstone `json:"tombstone,omitempty"`
	// Checksum is "sha256:<hex>" of the text.
	Checksum string `json:"checksum"`
}

// Live reports whether the memory answers searches: active, and neither
// waiting for review nor rejected.
func (h *Header) Live() bool {
	return h.Status == StatusActive && (h.Trust == TrustAsserted || h.Trust == TrustVerified)
}

// Part is the part of the store a memory belongs to: its scope (global or
// one project) and its domain. The summary tree never mixes two parts in
// a branch, and a search weighs a tie between two parts as a choice
// between topics.
func (h *Header) Part() string {
	domain := h.Domain
	if domain == "" {
		domain = "general"
	}
	if h.Scope == ScopeGlobal {
		return "global|" + domain
	}
	return "project:" + h.Project + "|" + domain
}

// PartProject reads a part (Header.Part) back: its project, or that it is
// the global part.
func PartProject(part string) (project string, global bool) {
	if i := strings.LastIndexByte(part, '|'); i >= 0 {
		part = part[:i]
	}
	if part == "global" {
		return "", true
	}
	return strings.TrimPrefix(part, "project:"), false
}

// Leaf is a header and the text it describes.
type Leaf struct {
	Header
	Text string
}

// ErrMalformed is returned (wrapped) by Parse for anything that is not a
// well-formed leaf.
var ErrMalformed = errors.New("malformed leaf")

// ID derives the id a memory with header h and text must have, from what
// makes it the same memory: its scope, project and exact text, so saving
// the same text in the same scope finds the earlier leaf instead of writing
// a second one. A part of a document (h.Source set) adds the document's
// digest and the part's position, so two equal blocks of one document are
// two leaves, and the same document ingested again finds its leaves.
func ID(h Header, text string) string {
	if h.Source != nil {
		text = fmt.Sprintf("%s\x00%d\x00%s", h.Source.Digest, h.Source.Part, text)
	}
	sum := sha256.New()
	sum.Write([]byte(h.Scope))
	sum.Write([]byte{0})
	sum.Write([]byte(h.Project))
	sum.Write([]byte{0})
	sum.Write([]byte(text))
	return hex.EncodeToString(sum.Sum(nil)[:8])
}

// Checksum returns "sha256:<hex>" of text.
func Checksum(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checksumOK reports whether want is Checksum(string(text)), without
// building either string: Parse checks every leaf at every start.
func checksumOK(text []byte, want string) bool {
	const prefix = "sha256:"
	if len(want) != len(prefix)+2*sha256.Size || want[:len(prefix)] != prefix {
		return false
	}
	sum := sha256.Sum256(text)
	var hexSum [2 * sha256.Size]byte
	hex.Encode(hexSum[:], sum[:])
	return string(hexSum[:]) == want[len(prefix):]
}

// IsID reports whether s has the shape of an id (16 lower-case hex digits),
// so ids can be used in file names without any path trickery.
func IsID(s string) bool {
	if len(s) != 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Encode renders a leaf file. The header is indented JSON so a person can
// read it; the text follows unchanged.
func Encode(l Leaf) ([]byte, error) {
	hdr, err := json.MarshalIndent(l.Header, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode leaf %s: %w", l.ID, err)
	}
	var b bytes.Buffer
	b.Grow(len(openMarker) + len(hdr) + len(closeMarker) + len(l.Text))
	b.WriteString(openMarker)
	b.Write(hdr)
	b.WriteString(closeMarker)
	b.WriteString(l.Text)
	return b.Bytes(), nil
}

// Parse reads a leaf file and verifies it: the header must be valid JSON
// with an id, and the text must match the checksum.
func Parse(data []byte) (Leaf, error) {
	if !bytes.HasPrefix(data, []byte(openMarker)) {
		return Leaf{}, fmt.Errorf("%w: no %q line at the start", ErrMalformed, "<<<IHMT-META")
	}
	rest := data[len(openMarker):]
	end := bytes.Index(rest, []byte(closeMarker))
	if end < 0 {
		return Leaf{}, fmt.Errorf("%w: no closing %q line", ErrMalformed, "IHMT-META>>>")
	}
	// Unknown header fields are tolerated: a newer version may add some, and
	// refusing them would hide the memory rather than protect it.
	var l Leaf
	if !decodeHeader(rest[:end], &l.Header) {
		l.Header = Header{}
		if err := json.Unmarshal(rest[:end], &l.Header); err != nil {
			return Leaf{}, fmt.Errorf("%w: header: %v", ErrMalformed, err)
		}
		share(&l.Header)
	}
	body := rest[end+len(closeMarker):]
	l.Text = string(body)
	if !IsID(l.ID) {
		return Leaf{}, fmt.Errorf("%w: id %q is not 16 hex digits", ErrMalformed, l.ID)
	}
	if l.Status == StatusPurged {
		// The text is gone on purpose; the checksum records what it was.
		if l.Text != "" {
			return Leaf{}, fmt.Errorf("%w: %s: purged but still holds text", ErrMalformed, l.ID)
		}
		return l, nil
	}
	if !checksumOK(body, l.Checksum) {
		return Leaf{}, fmt.Errorf("%w: %s: checksum mismatch (header %s, text %s)", ErrMalformed, l.ID, l.Checksum, Checksum(l.Text))
	}
	return l, nil
}
