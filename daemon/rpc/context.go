package rpc

import (
	"context"
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/store"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// DefaultPromptTokens is the per-prompt injection's budget when the person
// sets none: one memory and its notices.
const DefaultPromptTokens = 300

// ContextSettings are the person's settings for what hooks inject.
type ContextSettings struct {
	// StartTokens is the session-start briefing's budget; PromptTokens the
	// per-prompt injection's; Prompt turns the per-prompt injection on.
	StartTokens, PromptTokens int
	Prompt                    bool
}

// ContextServer is the ContextService over the same daemon's store: the
// briefing a session-start hook injects, and the settings the hooks follow.
// It shares the MemoryService's adapter (its store, its error translation,
// its activity count through the one interceptor), so it is a view of
// Server, not a second server.
type ContextServer struct {
	ihmtv1.UnimplementedContextServiceServer
	s        *Server
	settings func() (ContextSettings, error)
}

// Context returns the ContextService of s; settings reads the person's
// context settings (nil: the defaults).
func (s *Server) Context(settings func() (ContextSettings, error)) *ContextServer {
	if settings == nil {
		settings = func() (ContextSettings, error) {
			return ContextSettings{StartTokens: store.DefaultBriefTokens, PromptTokens: DefaultPromptTokens, Prompt: true}, nil
		}
	}
	return &ContextServer{s: s, settings: settings}
}

// Brief builds the caller's briefing in the store, within the request's
// budget or else the person's.
func (cs *ContextServer) Brief(ctx context.Context, req *ihmtv1.BriefRequest) (*ihmtv1.BriefResponse, error) {
	return withStore(cs.s, func(st *store.Store) (*ihmtv1.BriefResponse, error) {
		budget := int(req.GetMaxTokens())
		if budget == 0 {
			set, err := cs.settings()
			if err != nil {
				return nil, fmt.Errorf("%w: %v", store.ErrInvalid, err)
			}
			budget = set.StartTokens
		}
		b, err := st.Brief(store.BriefInput{Caller: caller(req.GetCaller()), MaxTokens: budget})
		if err != nil {
			return nil, err
		}
		out := &ihmtv1.BriefResponse{Text: b.Text, Tokens: int32(b.Tokens), LeftOut: int32(b.LeftOut)}
		for _, it := range b.Items {
			out.Items = append(out.Items, &ihmtv1.BriefItem{Kind: it.Kind, Id: it.ID, Text: it.Text, Tokens: int32(it.Tokens)})
		}
		return out, nil
	})
}

// Settings returns the person's context settings.
func (cs *ContextServer) Settings(ctx context.Context, req *ihmtv1.SettingsRequest) (*ihmtv1.SettingsResponse, error) {
	set, err := cs.settings()
	if err != nil {
		return nil, toStatus(fmt.Errorf("%w: %v", store.ErrInvalid, err))
	}
	return &ihmtv1.SettingsResponse{StartTokens: int32(set.StartTokens), PromptTokens: int32(set.PromptTokens), Prompt: set.Prompt}, nil
}
