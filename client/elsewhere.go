package client

import (
	"context"
	"slices"

	"google.golang.org/protobuf/proto"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Elsewhere is what other projects hold for a search that found nothing
// where it looked: the projects whose memories match, best first.
type Elsewhere struct {
	Projects []string
}

// FindElsewhere asks, for a not_found answer to a search that did not look
// everywhere, whether other projects hold matches: a memory saved from
// another directory (a home directory, another clone) is invisible to a
// repository's default search, and "not found" with no hint leaves the
// person to guess. It searches once more with scope all; nil means nothing
// elsewhere (or the answer was not a not_found, or it looked everywhere).
// A failure of the second search is no answer either: the first one
// stands.
//
// It is for the person (the CLI), who may read every project: the second
// search is a read across every project and is logged as one. An agent's
// search never calls it — naming the projects that hold matching memories
// would tell one project's session about another's.
func (c *Client) FindElsewhere(ctx context.Context, req *ihmtv1.SearchRequest, resp *ihmtv1.SearchResponse) *Elsewhere {
	if resp.GetStatus() != ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND || req.GetScope() == ihmtv1.SearchScope_SEARCH_SCOPE_ALL {
		return nil
	}
	all := proto.Clone(req).(*ihmtv1.SearchRequest)
	all.Scope = ihmtv1.SearchScope_SEARCH_SCOPE_ALL
	got, err := c.Search(ctx, all)
	if err != nil || got.GetStatus() == ihmtv1.SearchStatus_SEARCH_STATUS_NOT_FOUND {
		return nil
	}
	var out Elsewhere
	add := func(m *ihmtv1.Memory) {
		if m.GetScope() == ihmtv1.Scope_SCOPE_PROJECT && !slices.Contains(out.Projects, m.GetProject()) {
			out.Projects = append(out.Projects, m.GetProject())
		}
	}
	for _, r := range got.GetResults() {
		add(r.GetMemory())
	}
	if len(out.Projects) == 0 {
		return nil
	}
	return &out
}
