package rpc

import (
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The one place where the API's messages become the store's types and the
// store's answers become messages. A value this daemon does not know (a
// newer client's enum, or garbage) is refused here, as invalid input.

// caller says who is asking, as the store needs it.
func caller(c *ihmtv1.Caller) store.Caller {
	return store.Caller{
		Agent:   store.Agent{Name: c.GetAgentName(), Version: c.GetAgentVersion()},
		Session: c.GetSessionId(),
		Project: c.GetProject(),
		Person:  c.GetAgentName() == ihmtv1.PersonAgent,
	}
}

// The API's enums a request carries, as the engine's values. A value not
// listed (a newer client's, or garbage) is refused by known.
var (
	saveScopes = map[ihmtv1.Scope]store.Scope{
		ihmtv1.Scope_SCOPE_UNSPECIFIED: store.ScopeUnspecified,
		ihmtv1.Scope_SCOPE_GLOBAL:      store.ScopeGlobal,
		ihmtv1.Scope_SCOPE_PROJECT:     store.ScopeProject,
	}
	searchScopes = map[ihmtv1.SearchScope]store.SearchScope{
		ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED: store.ScopeDefault,
		ihmtv1.SearchScope_SEARCH_SCOPE_PROJECT:             store.ScopeOnlyProject,
		ihmtv1.SearchScope_SEARCH_SCOPE_GLOBAL:              store.ScopeOnlyGlobal,
		ihmtv1.SearchScope_SEARCH_SCOPE_ALL:                 store.ScopeAll,
	}
	decisions = map[ihmtv1.ReviewDecision]store.Decision{
		ihmtv1.ReviewDecision_REVIEW_DECISION_APPROVE: store.Approve,
		ihmtv1.ReviewDecision_REVIEW_DECISION_REJECT:  store.Reject,
	}
)

// known looks up an enum value of a request in its table; what names the
// field and hint says which values there are.
func known[K ~int32, V any](table map[K]V, k K, what, hint string) (V, error) {
	v, ok := table[k]
	if !ok {
		return v, fmt.Errorf("%w: unknown %s %d: %s", store.ErrInvalid, what, k, hint)
	}
	return v, nil
}

func saveScope(s ihmtv1.Scope) (store.Scope, error) {
	return known(saveScopes, s, "scope", ihmtv1.ScopeHint())
}

func searchScope(s ihmtv1.SearchScope) (store.SearchScope, error) {
	return known(searchScopes, s, "search scope", ihmtv1.SearchScopeHint())
}

func decision(d ihmtv1.ReviewDecision) (store.Decision, error) {
	return known(decisions, d, "review decision", "approve or reject")
}

func saveInput(req *ihmtv1.SaveRequest, scope store.Scope) store.SaveInput {
	return store.SaveInput{
		Caller:   caller(req.GetCaller()),
		Content:  req.GetContent(),
		Date:     req.GetDate(),
		Scope:    scope,
		Domain:   req.GetDomain(),
		Tags:     req.GetTags(),
		Replaces: req.GetReplaces(),
	}
}

func searchInput(req *ihmtv1.SearchRequest, scope store.SearchScope) store.SearchInput {
	return store.SearchInput{
		Caller:  caller(req.GetCaller()),
		Query:   req.GetQuery(),
		Clue:    req.GetClue(),
		Scope:   scope,
		Limit:   int(req.GetLimit()),
		AsOf:    req.GetAsOf(),
		KnownAt: req.GetKnownAt(),
		Explain: req.GetExplain(),
	}
}

func ingestInput(req *ihmtv1.IngestRequest, scope store.Scope) store.IngestInput {
	return store.IngestInput{
		Caller: caller(req.GetCaller()), Name: req.GetName(), Content: req.GetContent(), Type: req.GetType(),
		Domain: req.GetDomain(), Tags: req.GetTags(), Scope: scope, Date: req.GetDate(),
	}
}

func logFilter(req *ihmtv1.LogRequest) store.LogFilter {
	return store.LogFilter{Agent: req.GetAgent(), Session: req.GetSessionId(), Since: req.GetSince(), Limit: int(req.GetLimit())}
}

// What a call on the store came to, as the API's enums. An outcome not
// listed is the daemon's own mistake (outcome).
var (
	saveStatuses = map[store.SaveStatus]ihmtv1.SaveStatus{
		store.Saved:         ihmtv1.SaveStatus_SAVE_STATUS_SAVED,
		store.Duplicate:     ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE,
		store.PendingReview: ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW,
		store.Refused:       ihmtv1.SaveStatus_SAVE_STATUS_REFUSED,
	}
	ingestStatuses = map[store.IngestStatus]ihmtv1.IngestStatus{
		store.Ingested:      ihmtv1.IngestStatus_INGEST_STATUS_SAVED,
		store.Unchanged:     ihmtv1.IngestStatus_INGEST_STATUS_UNCHANGED,
		store.IngestPending: ihmtv1.IngestStatus_INGEST_STATUS_PENDING_REVIEW,
		store.IngestRefused: ihmtv1.IngestStatus_INGEST_STATUS_REFUSED,
	}
)

// outcome names how a call on the store ended; what names the call.
func outcome[K ~int, V any](table map[K]V, k K, what string) (V, error) {
	v, ok := table[k]
	if !ok {
		return v, fmt.Errorf("%s ended in an unknown state %d", what, k)
	}
	return v, nil
}

// each converts every element of a list; none gives nil, as the API's
// empty repeated field.
func each[T, U any](xs []T, conv func(T) U) []U {
	var out []U
	for _, x := range xs {
		out = append(out, conv(x))
	}
	return out
}

// memory converts a stored memory to the API's Memory.
func memory(l store.Memory) *ihmtv1.Memory {
	m := &ihmtv1.Memory{
		Id:            l.ID,
		Content:       l.Text,
		ValidFrom:     timestamppb.New(l.ValidFrom),
		RecordedAt:    timestamppb.New(l.RecordedAt),
		Project:       l.Project,
		Agent:         agent(l.Agent),
		SessionId:     l.Session,
		Status:        l.Status,
		Domain:        l.Domain,
		Tags:          l.Tags,
		Checksum:      l.Checksum,
		ReviewNote:    l.ReviewNote,
		OriginProject: l.OriginProject,
		Scope:         scope(l.Scope),
		Trust:         trust(l.Trust),
	}
	if src := l.Source; src != nil {
		m.Source = &ihmtv1.Source{Name: src.Name, Digest: src.Digest, Part: int32(src.Part), Parts: int32(src.Parts), Type: src.Type, Context: src.Context, Oversized: src.Oversized}
	}
	for _, k := range l.Corrects {
		m.Corrects = append(m.Corrects, k.ID)
	}
	for _, k := range l.CorrectedBy {
		m.CorrectedBy = append(m.CorrectedBy, k.ID)
	}
	if t := l.Tombstone; t != nil {
		m.Tombstone = &ihmtv1.Tombstone{ForgottenAt: timestamppb.New(t.At), By: agent(t.By), Reason: t.Reason}
		if t.PurgedAt != nil {
			m.Tombstone.PurgedAt = timestamppb.New(*t.PurgedAt)
		}
	}
	return m
}

// scope and trust read a memory's words (its header's) as the API's
// enums, by the wire's vocabulary. A word that is not one (a newer store's
// trust, say) leaves the field unspecified.
func scope(word string) ihmtv1.Scope {
	s, _ := ihmtv1.ParseScope(word)
	return s
}

func trust(word string) ihmtv1.Trust {
	t, _ := ihmtv1.ParseTrust(word)
	return t
}

func agent(a store.Agent) *ihmtv1.Agent {
	return &ihmtv1.Agent{Name: a.Name, Version: a.Version}
}

func candidate(h store.Hit) *ihmtv1.Candidate {
	return &ihmtv1.Candidate{Id: h.Leaf.ID, Excerpt: ihmtv1.Excerpt(h.Leaf.Text, ihmtv1.CandidateExcerptRunes), ValidFrom: timestamppb.New(h.Leaf.ValidFrom), Score: h.Score}
}

func saveReply(res store.SaveResult) (*ihmtv1.SaveResponse, error) {
	status, err := outcome(saveStatuses, res.Status, "save")
	if err != nil {
		return nil, err
	}
	out := &ihmtv1.SaveResponse{Status: status, Message: res.Message, Ids: res.IDs, Candidates: each(res.Candidates, candidate)}
	if res.Leaf.ID != "" {
		out.Id, out.Memory = res.Leaf.ID, memory(res.Leaf)
	}
	out.Corrections = each(res.Corrections, func(c store.Correction) *ihmtv1.Correction {
		return &ihmtv1.Correction{OldId: c.OldID, Notice: c.Notice}
	})
	return out, nil
}

func searchReply(res store.SearchResult) *ihmtv1.SearchResponse {
	c := res.Coverage
	out := &ihmtv1.SearchResponse{
		Confidence: res.Confidence,
		Coverage: &ihmtv1.Coverage{
			Exhaustive:       c.Exhaustive,
			NodesRead:        int64(c.NodesRead),
			LeavesScored:     int64(c.LeavesScored),
			LeavesVisible:    int64(c.LeavesVisible),
			ViaTree:          c.ViaTree,
			LeavesDescended:  int64(c.Descended),
			LeavesGuaranteed: int64(c.Guaranteed),
		},
		Terms:            res.Terms,
		ScopeDescription: res.ScopeDescription,
		Message:          res.Message,
		Trace:            trace(res.Trace),
	}
	switch res.Verdict {
	case store.Found:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_FOUND
		out.Results = each(res.Hits, func(h store.Hit) *ihmtv1.SearchResult {
			return &ihmtv1.SearchResult{Memory: memory(h.Leaf), Score: h.Score, Current: h.Current, Notices: h.Notices, TreePath: h.TreePath}
		})
	case store.Ambiguous, store.NotFound:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS
		if res.Verdict == store.NotFound {
			out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND
		}
		// For not_found these are near misses, named as such in Message.
		out.Candidates = each(res.Hits, candidate)
	}
	return out
}

func statsReply(c store.Stats, tree store.TreeStats) *ihmtv1.StatsResponse {
	return &ihmtv1.StatsResponse{
		Memories:        int64(c.Memories),
		GlobalMemories:  int64(c.GlobalMemories),
		ProjectMemories: int64(c.ProjectMemories),
		Projects:        int64(c.Projects),
		LogEntries:      c.LogEntries,
		PendingReview:   int64(c.PendingReview),
		Forgotten:       int64(c.Forgotten),
		Tree:            treeStats(tree),
		Facts:           int64(c.Facts),
	}
}

func purgeReply(r store.PurgeResult) *ihmtv1.PurgeResponse {
	return &ihmtv1.PurgeResponse{
		Memory: memory(r.Leaf), LeafBytes: int64(r.LeafBytes), LogEntries: int64(r.LogEntries),
		Message: r.Message,
	}
}

func logEntry(e store.LogEntry) *ihmtv1.LogEntry {
	return &ihmtv1.LogEntry{
		Seq: e.Seq, Time: timestamppb.New(e.Time), Op: e.Op, Ids: e.IDs,
		Agent: agent(e.Agent), SessionId: e.Session, Project: e.Project, Summary: e.Summary,
	}
}

func auditReply(rep store.AuditReport) *ihmtv1.VerifyAuditResponse {
	return &ihmtv1.VerifyAuditResponse{
		Ok: len(rep.Problems) == 0, Entries: rep.Entries, Unchained: rep.Unchained, Path: rep.Path, DamagedLines: rep.Damaged,
		Problems: each(rep.Problems, func(p store.AuditProblem) *ihmtv1.AuditProblem {
			return &ihmtv1.AuditProblem{Line: p.Line, Seq: p.Seq, Kind: p.Kind, Detail: p.Detail}
		}),
	}
}

func fact(r store.FactRow) *ihmtv1.Fact {
	k, e := r.Key, r.Entry
	return &ihmtv1.Fact{
		Subject: k.Subject, Attribute: k.Attribute, Value: e.Value, MemoryId: e.Leaf, Scope: r.Scope(), Current: r.Current,
		ValidFrom: timestamppb.New(e.ValidFrom), RecordedAt: timestamppb.New(e.RecordedAt),
		ValidTo: ts(e.ValidTo), SupersededAt: ts(e.SupersededAt),
	}
}

func supersession(x store.Supersession) *ihmtv1.Supersession {
	return &ihmtv1.Supersession{Old: fact(x.Old), New: fact(x.New)}
}

func ingestReply(r store.IngestResult) (*ihmtv1.IngestResponse, error) {
	status, err := outcome(ingestStatuses, r.Status, "ingest")
	if err != nil {
		return nil, err
	}
	return &ihmtv1.IngestResponse{
		Status: status, Superseded: r.Superseded, Type: r.Type, Domain: r.Domain, Oversized: int32(r.Oversized), Message: r.Message,
		Ids: each(r.Leaves, func(l store.Memory) string { return l.ID }),
	}, nil
}

func treeNode(l store.OutlineLine) *ihmtv1.TreeNode {
	return &ihmtv1.TreeNode{
		Depth: int32(l.Depth), Id: l.ID, Layer: int32(l.Layer), Group: l.Group,
		Title: l.Title, Children: int32(l.Children), Gone: int32(l.Gone),
	}
}

func treeStats(t store.TreeStats) *ihmtv1.TreeStats {
	return &ihmtv1.TreeStats{
		Ready: t.Ready, Leaves: int64(t.Leaves), Pending: int64(t.Pending), Branches: int64(t.Branches),
		Layers: int64(t.Layers), RootItems: int64(t.Root), Gone: int64(t.Gone),
	}
}

func rebuildReply(r RebuildReport) *ihmtv1.RebuildResponse {
	return &ihmtv1.RebuildResponse{Memories: int64(r.Memories), Facts: int64(r.Facts), TookMs: r.Took.Milliseconds(), Tree: treeStats(r.Tree)}
}

// ts converts a time that may be unset.
func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// trace is a search's trace on the wire; nil when none was asked for.
func trace(t *store.Trace) *ihmtv1.Trace {
	if t == nil {
		return nil
	}
	return &ihmtv1.Trace{
		Terms: t.Terms, Rewrites: t.Rewrites, Decided: t.Decided, Evidence: t.Evidence,
		Ranked: each(t.Ranked, func(r store.RankTrace) *ihmtv1.RankTrace {
			return &ihmtv1.RankTrace{Id: r.ID, Base: r.Base, Score: r.Score, Current: r.Current,
				Factors: each(r.Factors, func(f store.Factor) *ihmtv1.Factor {
					return &ihmtv1.Factor{Signal: f.Signal, Value: f.Value, Note: f.Note}
				})}
		}),
	}
}
