package client

import (
	"context"
	"path"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The project code calls: a project's map, its symbols found by a query,
// and its files read with the session's memory of what it was handed.

func (c *Client) code() ihmtv1.CodeServiceClient { return ihmtv1.NewCodeServiceClient(c.conn) }

// ProjectMap maps a project's files, with their symbols on request.
func (c *Client) ProjectMap(ctx context.Context, req *ihmtv1.ProjectMapRequest) (*ihmtv1.ProjectMapResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ProjectMapResponse, error) { return c.code().ProjectMap(ctx, req) })
}

// FindCode finds the symbols of a project that answer a query.
func (c *Client) FindCode(ctx context.Context, req *ihmtv1.FindCodeRequest) (*ihmtv1.FindCodeResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.FindCodeResponse, error) { return c.code().FindCode(ctx, req) })
}

// ReadFile reads a project file: whole, or UNCHANGED or a diff when the
// session was handed it before.
func (c *Client) ReadFile(ctx context.Context, req *ihmtv1.ReadFileRequest) (*ihmtv1.ReadFileResponse, error) {
	req.Caller = c.caller(req.Caller)
	return call(ctx, c, func(ctx context.Context) (*ihmtv1.ReadFileResponse, error) {
		return c.code().ReadFile(c.withSessionKey(ctx), req)
	})
}

// MapDir is one directory of a project map and its files, in map order.
type MapDir struct {
	Dir   string // "./" for the root, else "dir/sub/"
	Files []*ihmtv1.FileInfo
}

// MapByDir groups a map's files by their directory, each directory once,
// in the order its first file comes: a map sorted by path puts the root's
// "go.mod" after "client/…", and listing by runs of one directory would
// name "./" twice. The shim's project_map and `ihmt project-map` both
// print this.
func MapByDir(files []*ihmtv1.FileInfo) []MapDir {
	var out []MapDir
	at := map[string]int{}
	for _, f := range files {
		d, _ := path.Split(f.GetPath())
		if d == "" {
			d = "./"
		}
		i, ok := at[d]
		if !ok {
			i = len(out)
			at[d] = i
			out = append(out, MapDir{Dir: d})
		}
		out[i].Files = append(out[i].Files, f)
	}
	return out
}
