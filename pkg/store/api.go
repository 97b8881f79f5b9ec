package store

import (
	"github.com/ihmt-dev/ihmt/pkg/brief"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/tree"
	"github.com/ihmt-dev/ihmt/pkg/verdict"
)

// The names a caller of the store works with, so that the daemon builds
// its replies without importing the store's parts (the leaf format, the
// journal, the tree, the timeline). Most are the parts' own types under
// the store's name: a copy would only repeat their fields.

// Memory is one memory as the store keeps it: its header and its text.
type Memory = leaf.Leaf

// Agent names the writer of a memory: the MCP client's name and version.
type Agent = leaf.Agent

// OutlineLine is one node of the summary tree's outline (Outline).
type OutlineLine = tree.Line

// AuditProblem is one edit VerifyAudit found in the log (AuditReport).
type AuditProblem = journal.Problem

// Limits on what a caller may give the store.
const (
	// MaxContent bounds one memory's text.
	MaxContent = leaf.MaxContent
	// MaxDocument bounds a document given to Ingest.
	MaxDocument = leaf.MaxDocument
)

// Verdict is a search's outcome (pkg/verdict decides it).
type Verdict = verdict.Verdict

// The verdicts.
const (
	Found     = verdict.Found
	Ambiguous = verdict.Ambiguous
	NotFound  = verdict.NotFound
)

// The search's own names (pkg/recall runs it).
type (
	// SearchResult is a ranked answer.
	SearchResult = recall.Result
	// Hit is one ranked memory.
	Hit = recall.Hit
	// Coverage says how much of the store a search examined.
	Coverage = recall.Coverage
	// Trace is how a search reached its answer: each ranked memory's
	// RankTrace, with every Factor that moved it.
	Trace     = recall.Trace
	RankTrace = recall.RankTrace
	Factor    = recall.Factor
	// EvalOptions are the knobs of a search for tests, benchmarks and
	// evaluation scripts.
	EvalOptions = recall.Options
)

// A session's briefing, as pkg/brief lays it out.
type (
	Briefing  = brief.Briefing
	BriefItem = brief.Item
)

// Briefing budgets and the kinds of its lines.
const (
	DefaultBriefTokens = brief.DefaultTokens
	MinBriefTokens     = brief.MinTokens
	MaxBriefTokens     = brief.MaxTokens
	BriefFact          = brief.Fact
	BriefMemory        = brief.Memory
)
