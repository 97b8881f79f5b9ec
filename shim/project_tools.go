package shim

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
	"github.com/ihmt-dev/ihmt/proto/ihmt/v1/markup"
)

// The project family: a codebase's map, its symbols found by a query, and
// its files read without paying twice for what this session already has.
// The daemon keeps the index (synced with the files on every call) and
// what each session was handed; every path stays inside the project root,
// which is the client's MCP root or the git top level of the working
// directory.

func (s *server) addProjectTools(srv *mcp.Server) {
	no := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "project_map",
		Title: "Map the project",
		Description: "A compact map of the project's files with their size in tokens (estimate: 4 characters a token); detail=\"symbols\" adds each type, function and method with its line range. " +
			"Paths are relative to the project root; subpath narrows it to a directory.",
		Annotations: &mcp.ToolAnnotations{Title: "Project map", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.projectMap))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  "find_code",
		Title: "Find code by meaning of its words",
		Description: "Find the function, type or method that answers a question about the code, as file:first-last plus its code, within max_tokens (default 1500). " +
			"scope=main (default) skips tests, test searches only tests, all both. Status ambiguous lists tied symbols: call again with a clue; not_found means no symbol matches.",
		Annotations: &mcp.ToolAnnotations{Title: "Find code", ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.findCode))
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "read_file",
		Title:       "Read a project file",
		Description: "Read a file of the project. Reading a file again in this session answers UNCHANGED or only a unified diff against what you last received; force=true returns it whole.",
		Annotations: &mcp.ToolAnnotations{Title: "Read file", ReadOnlyHint: true, IdempotentHint: false, DestructiveHint: &no, OpenWorldHint: &no},
	}, withCaller(s, s.readFile))
}

// projectRoot is the directory the project tools work in.
func (s *server) projectRoot(tool string) (string, error) {
	s.mu.Lock()
	root := s.rootDir
	s.mu.Unlock()
	if root == "" {
		return "", fmt.Errorf("%s: no project directory: the client named no root and the working directory is unknown. Tell the user to start the agent inside the project", tool)
	}
	return root, nil
}

// MapArgs are project_map's arguments.
type MapArgs struct {
	Path    string `json:"path,omitempty" jsonschema:"a directory of the project, relative to its root (default: the root)"`
	Detail  string `json:"detail,omitempty" jsonschema:"files (default) or symbols"`
	Subpath string `json:"subpath,omitempty" jsonschema:"a directory under path to map alone"`
}

// MapSymbol is one declaration in a map.
type MapSymbol struct {
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	Lines string `json:"lines" jsonschema:"first-last"`
}

// MapFile is one file in a map.
type MapFile struct {
	Path    string      `json:"path"`
	Tokens  int64       `json:"tokens" jsonschema:"estimate: 4 characters a token"`
	Lines   int         `json:"lines"`
	Symbols []MapSymbol `json:"symbols,omitempty"`
}

// MapResult is project_map's structured result.
type MapResult struct {
	Root        string    `json:"root"`
	Files       []MapFile `json:"files"`
	TotalTokens int64     `json:"total_tokens" jsonschema:"of every file listed: what reading them all would cost"`
	Truncated   bool      `json:"truncated"`
	Notes       []string  `json:"notes"`
}

func (s *server) projectMap(ctx context.Context, caller *ihmtv1.Caller, args MapArgs) (*mcp.CallToolResult, MapResult, error) {
	root, err := s.projectRoot("project_map")
	if err != nil {
		return nil, MapResult{}, err
	}
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.ProjectMap(ctx, &ihmtv1.ProjectMapRequest{Caller: caller, Root: root, Path: args.Path, Detail: args.Detail, Subpath: args.Subpath})
	if err != nil {
		return nil, MapResult{}, sessionError("project_map", err)
	}
	out := MapResult{Root: root, Files: []MapFile{}, TotalTokens: resp.GetTotalTokens(), Truncated: resp.GetTruncated(), Notes: s.notes()}
	for _, f := range resp.GetFiles() {
		mf := MapFile{Path: f.GetPath(), Tokens: f.GetTokens(), Lines: int(f.GetLines())}
		for _, sym := range f.GetSymbols() {
			mf.Symbols = append(mf.Symbols, MapSymbol{Name: sym.GetName(), Kind: sym.GetKind(), Lines: lineRange(sym.GetFirstLine(), sym.GetLastLine())})
		}
		out.Files = append(out.Files, mf)
	}
	return reply(mapText(out, resp.GetFiles()), out.Notes), out, nil
}

// mapText lists the files grouped by directory, each directory once (see
// client.MapByDir), each file with its estimated tokens, and its symbols
// one a line: the shape that costs the fewest tokens for what it says.
func mapText(m MapResult, files []*ihmtv1.FileInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d files, ~%d tokens in all (estimate: 4 characters a token)", m.Root, len(m.Files), m.TotalTokens)
	if m.Truncated {
		b.WriteString("; the list was cut: map a subpath")
	}
	for _, d := range client.MapByDir(files) {
		fmt.Fprintf(&b, "\n%s", d.Dir)
		for _, f := range d.Files {
			fmt.Fprintf(&b, "\n %s %d", path.Base(f.GetPath()), f.GetTokens())
			for _, sym := range f.GetSymbols() {
				fmt.Fprintf(&b, "\n  %s %s %s", sym.GetKind(), sym.GetName(), lineRange(sym.GetFirstLine(), sym.GetLastLine()))
			}
		}
	}
	return b.String()
}

func lineRange(first, last int32) string {
	if first == 0 {
		return ""
	}
	return fmt.Sprintf("%d-%d", first, last)
}

// FindArgs are find_code's arguments.
type FindArgs struct {
	Query     string `json:"query" jsonschema:"what the code does, in words, or names in it"`
	Path      string `json:"path,omitempty" jsonschema:"a directory of the project, relative to its root (default: the root)"`
	Scope     string `json:"scope,omitempty" jsonschema:"main (default: no tests), test or all"`
	Subpath   string `json:"subpath,omitempty" jsonschema:"a directory under path to search alone"`
	Clue      string `json:"clue,omitempty" jsonschema:"a word that tells apart the candidates of an ambiguous answer"`
	MaxTokens int    `json:"max_tokens,omitempty" jsonschema:"budget for the code returned (default 1500)"`
}

// CodeHit is one symbol in an answer.
type CodeHit struct {
	Place     string  `json:"place" jsonschema:"file:first-last"`
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`
	Code      string  `json:"code,omitempty"`
	Truncated bool    `json:"truncated,omitempty" jsonschema:"the code was cut to the budget: read_file for all of it"`
	Score     float64 `json:"score"`
}

// FindResult is find_code's structured result.
type FindResult struct {
	Status     string    `json:"status" jsonschema:"found, ambiguous or not_found"`
	Confidence float64   `json:"confidence"`
	Hits       []CodeHit `json:"hits"`
	Also       []CodeHit `json:"also" jsonschema:"further matches, without their code"`
	Candidates []CodeHit `json:"candidates"`
	Tokens     int64     `json:"tokens" jsonschema:"estimated tokens of the code returned"`
	Message    string    `json:"message"`
	NextStep   string    `json:"next_step"`
	Notes      []string  `json:"notes"`
}

var findNext = map[string]string{
	"found":     "The code is above; read_file the file only if you need more than the symbol.",
	"ambiguous": "Call find_code again with a clue (a word of the one you mean), or narrow it with subpath.",
	"not_found": "No symbol in scope matches: rephrase with names the code would use, widen scope, or map the project.",
}

func (s *server) findCode(ctx context.Context, caller *ihmtv1.Caller, args FindArgs) (*mcp.CallToolResult, FindResult, error) {
	root, err := s.projectRoot("find_code")
	if err != nil {
		return nil, FindResult{}, err
	}
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.FindCode(ctx, &ihmtv1.FindCodeRequest{
		Caller: caller, Root: root, Query: args.Query, Path: args.Path, Scope: args.Scope, Subpath: args.Subpath, Clue: args.Clue, MaxTokens: int32(args.MaxTokens),
	})
	if err != nil {
		return nil, FindResult{}, sessionError("find_code", err)
	}
	out := FindResult{
		Status: ihmtv1.SearchStatusName(resp.GetStatus()), Confidence: resp.GetConfidence(), Tokens: resp.GetTokens(), Message: resp.GetMessage(),
		Hits: []CodeHit{}, Also: []CodeHit{}, Candidates: codeHits(resp.GetCandidates()), Notes: s.notes(),
	}
	for _, h := range codeHits(resp.GetHits()) {
		if h.Code == "" {
			out.Also = append(out.Also, h)
		} else {
			out.Hits = append(out.Hits, h)
		}
	}
	out.NextStep = findNext[out.Status]
	return reply(findText(out), out.Notes), out, nil
}

func findText(f FindResult) string {
	var b strings.Builder
	switch f.Status {
	case "found":
		fmt.Fprintf(&b, "found (confidence %.2f): %s, ~%d tokens", f.Confidence, plural(len(f.Hits), "symbol", "symbols"), f.Tokens)
	default:
		fmt.Fprintf(&b, "%s: %s", f.Status, f.Message)
	}
	for _, h := range f.Hits {
		fmt.Fprintf(&b, "\n\n%s %s %s\n%s", h.Place, h.Kind, h.Name, h.Code)
		if h.Truncated {
			b.WriteString("\n… cut to max_tokens: read_file for the rest")
		}
	}
	if len(f.Also) > 0 {
		b.WriteString("\n\nalso matching:")
		for _, h := range f.Also {
			fmt.Fprintf(&b, "\n- %s %s %s", h.Place, h.Kind, h.Name)
		}
	}
	for _, h := range f.Candidates {
		fmt.Fprintf(&b, "\n- %s %s %s", h.Place, h.Kind, h.Name)
	}
	b.WriteString("\n" + f.NextStep)
	return b.String()
}

func codeHits(hs []*ihmtv1.CodeHit) []CodeHit {
	out := []CodeHit{}
	for _, h := range hs {
		out = append(out, CodeHit{
			Place: fmt.Sprintf("%s:%d-%d", h.GetPath(), h.GetFirstLine(), h.GetLastLine()), Name: h.GetName(), Kind: h.GetKind(),
			Code: markup.Neutralize(h.GetCode(), markup.Code), Truncated: h.GetTruncated(), Score: round3(h.GetScore()),
		})
	}
	return out
}

// ReadArgs are read_file's arguments.
type ReadArgs struct {
	Path  string `json:"path" jsonschema:"the file, relative to the project root"`
	Force bool   `json:"force,omitempty" jsonschema:"return the whole file even if this session read it before"`
}

// ReadResult is read_file's structured result.
type ReadResult struct {
	Path   string   `json:"path"`
	Mode   string   `json:"mode" jsonschema:"full, unchanged or diff"`
	Text   string   `json:"text" jsonschema:"the file (full), nothing (unchanged) or a unified diff against your last read (diff)"`
	Lines  int      `json:"lines"`
	Tokens int64    `json:"tokens" jsonschema:"of the whole file (estimate: 4 characters a token)"`
	Notes  []string `json:"notes"`
}

func (s *server) readFile(ctx context.Context, caller *ihmtv1.Caller, args ReadArgs) (*mcp.CallToolResult, ReadResult, error) {
	root, err := s.projectRoot("read_file")
	if err != nil {
		return nil, ReadResult{}, err
	}
	s.hold.ensure(s.cfg.Client, caller, s.cfg.Logger)
	resp, err := s.cfg.Client.ReadFile(ctx, &ihmtv1.ReadFileRequest{Caller: caller, Root: root, Path: args.Path, Force: args.Force})
	if err != nil {
		return nil, ReadResult{}, sessionError("read_file", err)
	}
	out := ReadResult{Path: resp.GetPath(), Mode: resp.GetMode(), Text: markup.Neutralize(resp.GetText(), markup.Code), Lines: int(resp.GetLines()), Tokens: resp.GetTokens(), Notes: s.notes()}
	var msg string
	switch out.Mode {
	case "unchanged":
		msg = fmt.Sprintf("UNCHANGED: %s is as this session last read it (%d lines). Pass force=true for the whole file.", out.Path, out.Lines)
	case "diff":
		msg = fmt.Sprintf("%s changed since this session last read it; unified diff against that read (%d lines now):\n%s", out.Path, out.Lines, out.Text)
	default:
		msg = fmt.Sprintf("%s (%d lines, ~%d tokens):\n%s", out.Path, out.Lines, out.Tokens, out.Text)
	}
	return reply(msg, out.Notes), out, nil
}
