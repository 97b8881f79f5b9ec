package store

import (
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/tree"
)

// The names a caller of the store works with. The daemon builds its replies
// from these and needs no other package of the engine: the store's parts
// (the leaf format, the tree, the timeline) can change their insides
// without the daemon noticing.

// Memory is one memory as the store keeps it: its header and its text.
// It is the leaf format's own record under the store's name: a copy would
// only repeat its fields.
type Memory = leaf.Leaf

// Agent names the writer of a memory: the MCP client's name and version.
type Agent = leaf.Agent

// OutlineLine is one node of the summary tree's outline (Outline).
type OutlineLine = tree.Line

// AuditProblem is one edit VerifyAudit found in the log (AuditReport).
type AuditProblem = journal.Problem

// The trust a memory carries (Memory.Trust).
const (
	// TrustAsserted: an agent saved it.
	TrustAsserted = leaf.TrustAsserted
	// TrustVerified: a person confirmed it.
	TrustVerified = leaf.TrustVerified
	// TrustPending: held for a person's review.
	TrustPending = leaf.TrustPending
	// TrustRejected: a person rejected it; it is never returned.
	TrustRejected = leaf.TrustRejected
)

// Limits on what a caller may give the store.
const (
	// MaxContent bounds one memory's text.
	MaxContent = leaf.MaxContent
	// MaxDocument bounds a document given to Ingest.
	MaxDocument = leaf.MaxDocument
)

// ScopeOf says which scope a memory is in: ScopeGlobal or ScopeProject, or
// ScopeUnspecified for a header that names neither (one written by a newer
// version).
func ScopeOf(m Memory) Scope {
	switch m.Scope {
	case leaf.ScopeGlobal:
		return ScopeGlobal
	case leaf.ScopeProject:
		return ScopeProject
	}
	return ScopeUnspecified
}
