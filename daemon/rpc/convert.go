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

// saveScope maps the API's scope onto the engine's.
func saveScope(s ihmtv1.Scope) (store.Scope, error) {
	switch s {
	case ihmtv1.Scope_SCOPE_UNSPECIFIED:
		return store.ScopeUnspecified, nil
	case ihmtv1.Scope_SCOPE_GLOBAL:
		return store.ScopeGlobal, nil
	case ihmtv1.Scope_SCOPE_PROJECT:
		return store.ScopeProject, nil
	}
	return 0, fmt.Errorf("%w: unknown scope %d: use global or project", store.ErrInvalid, s)
}

// searchScope maps the API's search scope onto the engine's.
func searchScope(s ihmtv1.SearchScope) (store.SearchScope, error) {
	switch s {
	case ihmtv1.SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED:
		return store.ScopeDefault, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_PROJECT:
		return store.ScopeOnlyProject, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_GLOBAL:
		return store.ScopeOnlyGlobal, nil
	case ihmtv1.SearchScope_SEARCH_SCOPE_ALL:
		return store.ScopeAll, nil
	}
	return 0, fmt.Errorf("%w: unknown search scope %d: use default, project, global or all", store.ErrInvalid, s)
}

// decision maps a review decision onto the engine's.
func decision(d ihmtv1.ReviewDecision) (store.Decision, error) {
	switch d {
	case ihmtv1.ReviewDecision_REVIEW_DECISION_APPROVE:
		return store.Approve, nil
	case ihmtv1.ReviewDecision_REVIEW_DECISION_REJECT:
		return store.Reject, nil
	}
	return 0, fmt.Errorf("%w: unknown review decision %d: approve or reject", store.ErrInvalid, d)
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
		Scope:         scopes[store.ScopeOf(l)],
		Trust:         trusts[l.Trust],
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

// scopes and trusts name a memory's scope and trust on the wire; one they
// do not list (a newer store's) is left unspecified.
var (
	scopes = map[store.Scope]ihmtv1.Scope{store.ScopeGlobal: ihmtv1.Scope_SCOPE_GLOBAL, store.ScopeProject: ihmtv1.Scope_SCOPE_PROJECT}
	trusts = map[string]ihmtv1.Trust{
		store.TrustAsserted: ihmtv1.Trust_TRUST_ASSERTED,
		store.TrustVerified: ihmtv1.Trust_TRUST_VERIFIED,
		store.TrustPending:  ihmtv1.Trust_TRUST_PENDING,
		store.TrustRejected: ihmtv1.Trust_TRUST_REJECTED,
	}
)

func memories(ls []store.Memory) []*ihmtv1.Memory {
	var out []*ihmtv1.Memory
	for _, l := range ls {
		out = append(out, memory(l))
	}
	return out
}

func agent(a store.Agent) *ihmtv1.Agent {
	return &ihmtv1.Agent{Name: a.Name, Version: a.Version}
}

func candidates(hits []store.Hit) []*ihmtv1.Candidate {
	var out []*ihmtv1.Candidate
	for _, h := range hits {
		out = append(out, &ihmtv1.Candidate{Id: h.Leaf.ID, Excerpt: store.Excerpt(h.Leaf.Text), ValidFrom: timestamppb.New(h.Leaf.ValidFrom), Score: h.Score})
	}
	return out
}

// saveStatuses name the outcomes of a save on the wire.
var saveStatuses = map[store.SaveStatus]ihmtv1.SaveStatus{
	store.Saved:         ihmtv1.SaveStatus_SAVE_STATUS_SAVED,
	store.Duplicate:     ihmtv1.SaveStatus_SAVE_STATUS_DUPLICATE,
	store.PendingReview: ihmtv1.SaveStatus_SAVE_STATUS_PENDING_REVIEW,
	store.Refused:       ihmtv1.SaveStatus_SAVE_STATUS_REFUSED,
}

func saveReply(res store.SaveResult) (*ihmtv1.SaveResponse, error) {
	out := &ihmtv1.SaveResponse{Message: res.Message, Ids: res.IDs, Status: saveStatuses[res.Status], Candidates: candidates(res.Candidates)}
	if out.Status == ihmtv1.SaveStatus_SAVE_STATUS_UNSPECIFIED {
		return nil, fmt.Errorf("save ended in an unknown state %d", res.Status)
	}
	if res.Leaf.ID != "" {
		out.Id, out.Memory = res.Leaf.ID, memory(res.Leaf)
	}
	if res.Status == store.Duplicate {
		out.Message = "already stored on " + res.Leaf.RecordedAt.Format("2006-01-02") + "; nothing written"
	}
	for _, c := range res.Corrections {
		out.Corrections = append(out.Corrections, &ihmtv1.Correction{OldId: c.OldID, Notice: c.Notice})
	}
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
	}
	switch res.Verdict {
	case store.Found:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_FOUND
		for _, h := range res.Hits {
			out.Results = append(out.Results, &ihmtv1.SearchResult{Memory: memory(h.Leaf), Score: h.Score, Current: h.Current, Notices: h.Notices, TreePath: h.TreePath})
		}
	case store.Ambiguous, store.NotFound:
		out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS
		if res.Verdict == store.NotFound {
			out.Status = ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND
		}
		// For not_found these are near misses, named as such in Message.
		out.Candidates = candidates(res.Hits)
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
		Message: fmt.Sprintf("Purged %s: removed %d bytes of text from its leaf file and from %d log entries; its header, tombstone and this purge stay on record.", r.Leaf.ID, r.LeafBytes, r.LogEntries),
	}
}

func logReply(entries []store.LogEntry, matched int) *ihmtv1.LogResponse {
	out := &ihmtv1.LogResponse{Matched: int64(matched)}
	for _, e := range entries {
		out.Entries = append(out.Entries, &ihmtv1.LogEntry{
			Seq: e.Seq, Time: timestamppb.New(e.Time), Op: e.Op, Ids: e.IDs,
			Agent: agent(e.Agent), SessionId: e.Session, Project: e.Project, Summary: e.Summary,
		})
	}
	return out
}

func auditReply(rep store.AuditReport) *ihmtv1.VerifyAuditResponse {
	out := &ihmtv1.VerifyAuditResponse{Ok: len(rep.Problems) == 0, Entries: rep.Entries, Unchained: rep.Unchained, Path: rep.Path, DamagedLines: rep.Damaged}
	for _, p := range rep.Problems {
		out.Problems = append(out.Problems, &ihmtv1.AuditProblem{Line: p.Line, Seq: p.Seq, Kind: p.Kind, Detail: p.Detail})
	}
	return out
}

func facts(rows []store.FactRow) []*ihmtv1.Fact {
	var out []*ihmtv1.Fact
	for _, r := range rows {
		out = append(out, fact(r))
	}
	return out
}

func fact(r store.FactRow) *ihmtv1.Fact {
	k, e := r.Key, r.Entry
	return &ihmtv1.Fact{
		Subject: k.Subject, Attribute: k.Attribute, Value: e.Value, MemoryId: e.Leaf, Scope: r.Scope(), Current: r.Current,
		ValidFrom: timestamppb.New(e.ValidFrom), RecordedAt: timestamppb.New(e.RecordedAt),
		ValidTo: ts(e.ValidTo), SupersededAt: ts(e.SupersededAt),
	}
}

func supersessions(sups []store.Supersession) []*ihmtv1.Supersession {
	var out []*ihmtv1.Supersession
	for _, x := range sups {
		out = append(out, &ihmtv1.Supersession{Old: fact(x.Old), New: fact(x.New)})
	}
	return out
}

// ingestStatuses name the outcomes of an ingest on the wire.
var ingestStatuses = map[store.IngestStatus]ihmtv1.IngestStatus{
	store.Ingested:      ihmtv1.IngestStatus_INGEST_STATUS_SAVED,
	store.Unchanged:     ihmtv1.IngestStatus_INGEST_STATUS_UNCHANGED,
	store.IngestPending: ihmtv1.IngestStatus_INGEST_STATUS_PENDING_REVIEW,
	store.IngestRefused: ihmtv1.IngestStatus_INGEST_STATUS_REFUSED,
}

func ingestReply(r store.IngestResult) (*ihmtv1.IngestResponse, error) {
	out := &ihmtv1.IngestResponse{Superseded: r.Superseded, Type: r.Type, Domain: r.Domain, Oversized: int32(r.Oversized), Message: r.Message, Status: ingestStatuses[r.Status]}
	if out.Status == ihmtv1.IngestStatus_INGEST_STATUS_UNSPECIFIED {
		return nil, fmt.Errorf("ingest ended in an unknown state %d", r.Status)
	}
	for _, l := range r.Leaves {
		out.Ids = append(out.Ids, l.ID)
	}
	return out, nil
}

func outlineReply(lines []store.OutlineLine, stats store.TreeStats) *ihmtv1.TreeResponse {
	out := &ihmtv1.TreeResponse{Stats: treeStats(stats)}
	for _, l := range lines {
		out.Nodes = append(out.Nodes, &ihmtv1.TreeNode{
			Depth: int32(l.Depth), Id: l.ID, Layer: int32(l.Layer), Group: l.Group,
			Title: l.Title, Children: int32(l.Children), Gone: int32(l.Gone),
		})
	}
	return out
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
