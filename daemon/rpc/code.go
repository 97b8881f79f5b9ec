package rpc

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/codeindex"
	"github.com/ihmt-dev/ihmt/pkg/linediff"
	"github.com/ihmt-dev/ihmt/pkg/scratch"
	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// CodeServer is the CodeService over the projects' code indexes, and over
// the scratch sessions for what read_file handed each session. It needs no
// store: the indexes are derived from the project's files.
type CodeServer struct {
	ihmtv1.UnimplementedCodeServiceServer
	indexes  *codeindex.Indexes
	sessions *scratch.Sessions
	log      *slog.Logger
}

// NewCodeServer returns the CodeService over indexes and sessions.
func NewCodeServer(indexes *codeindex.Indexes, sessions *scratch.Sessions, log *slog.Logger) *CodeServer {
	if log == nil {
		log = slog.Default()
	}
	return &CodeServer{indexes: indexes, sessions: sessions, log: log}
}

// project returns the index of a request's root.
func (s *CodeServer) project(root string) (*codeindex.Project, error) {
	r, err := codeindex.Root(root)
	if err != nil {
		return nil, err
	}
	return s.indexes.Project(r), nil
}

// ProjectMap maps the project's files, with their symbols on request.
func (s *CodeServer) ProjectMap(ctx context.Context, req *ihmtv1.ProjectMapRequest) (*ihmtv1.ProjectMapResponse, error) {
	p, err := s.project(req.GetRoot())
	if err != nil {
		return nil, toStatus(err)
	}
	m, err := p.Map(req.GetPath(), req.GetSubpath(), req.GetDetail())
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.ProjectMapResponse{TotalTokens: m.TotalTokens, Truncated: m.Truncated, Stats: indexStats(m.Stats)}
	for _, f := range m.Files {
		fi := &ihmtv1.FileInfo{Path: f.Path, Bytes: f.Bytes, Tokens: f.Tokens, Lines: int32(f.Lines)}
		if f.Skipped != "" {
			fi.Symbols = []*ihmtv1.SymbolInfo{{Name: "(not indexed: " + f.Skipped + ")", Kind: "skipped"}}
		}
		for _, sym := range f.Symbols {
			fi.Symbols = append(fi.Symbols, symbolInfo(sym))
		}
		out.Files = append(out.Files, fi)
	}
	return out, nil
}

// FindCode answers a query with the project's matching symbols.
func (s *CodeServer) FindCode(ctx context.Context, req *ihmtv1.FindCodeRequest) (*ihmtv1.FindCodeResponse, error) {
	p, err := s.project(req.GetRoot())
	if err != nil {
		return nil, toStatus(err)
	}
	a, err := p.Find(codeindex.FindQuery{
		Query: req.GetQuery(), Clue: req.GetClue(), Path: req.GetPath(), Subpath: req.GetSubpath(),
		Scope: req.GetScope(), MaxTokens: int(req.GetMaxTokens()),
	})
	if err != nil {
		return nil, toStatus(err)
	}
	out := &ihmtv1.FindCodeResponse{
		Status: verdictReply(a.Verdict), Confidence: a.Confidence, Message: a.Message, Tokens: a.Tokens, Stats: indexStats(a.Stats),
	}
	for _, h := range a.Hits {
		out.Hits = append(out.Hits, codeHit(h))
	}
	for _, h := range a.Also {
		out.Hits = append(out.Hits, codeHit(h))
	}
	for _, h := range a.Candidates {
		out.Candidates = append(out.Candidates, codeHit(h))
	}
	return out, nil
}

// ReadFile returns a file, or — when this session was handed it before —
// UNCHANGED or a unified diff against what it was handed.
func (s *CodeServer) ReadFile(ctx context.Context, req *ihmtv1.ReadFileRequest) (*ihmtv1.ReadFileResponse, error) {
	// What this session was handed is its own, as its notes are.
	if err := claim(ctx, s.sessions, req.GetCaller().GetSessionId()); err != nil {
		return nil, toStatus(err)
	}
	root, err := codeindex.Root(req.GetRoot())
	if err != nil {
		return nil, toStatus(err)
	}
	if req.GetPath() == "" {
		return nil, toStatus(fmt.Errorf("%w: no path: name a file inside the project", store.ErrInvalid))
	}
	rel, text, err := codeindex.Read(root, req.GetPath())
	if err != nil {
		return nil, toStatus(err)
	}
	session := req.GetCaller().GetSessionId()
	key := root + "\x00" + rel
	out := &ihmtv1.ReadFileResponse{Path: rel, Mode: "full", Text: text, Lines: int32(lines(text)), Bytes: int64(len(text)), Tokens: codeindex.Tokens(int64(len(text)))}
	if prev, ok := s.sessions.Handed(session, key); ok && !req.GetForce() {
		if prev == text {
			out.Mode, out.Text = "unchanged", ""
		} else if d, ok := linediff.Unified(rel, prev, text); ok && len(d) < len(text) {
			out.Mode, out.Text = "diff", d
		}
	}
	if err := s.sessions.Hand(session, key, text); err != nil {
		return nil, toStatus(err)
	}
	return out, nil
}

func lines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func symbolInfo(s codeindex.Symbol) *ihmtv1.SymbolInfo {
	return &ihmtv1.SymbolInfo{Name: s.Name, Kind: s.Kind, FirstLine: int32(s.First), LastLine: int32(s.Last)}
}

func codeHit(h codeindex.Found) *ihmtv1.CodeHit {
	return &ihmtv1.CodeHit{
		Path: h.Path, Name: h.Symbol.Name, Kind: h.Symbol.Kind, FirstLine: int32(h.Symbol.First), LastLine: int32(h.Symbol.Last),
		Code: h.Code, Truncated: h.Truncated, Score: h.Score, Tokens: h.Tokens,
	}
}

func indexStats(st codeindex.Stats) *ihmtv1.IndexStats {
	return &ihmtv1.IndexStats{
		Files: int32(st.Files), Symbols: int32(st.Symbols), Reindexed: int32(st.Reindexed), Removed: int32(st.Removed),
		Checksummed: int32(st.Checksummed), Skipped: int32(st.Skipped), SyncMs: float64(st.Took.Microseconds()) / 1000,
	}
}
