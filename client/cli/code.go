package cli

import (
	"fmt"
	"os"
	"path"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/project"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// The project tools at the terminal: the same daemon calls the shim's
// project_map, find_code and read_file make, so a person can see what an
// agent was shown. The project is the git top level of the working
// directory, as for an agent started there.

// projectRoot is the directory the project commands work in.
func projectRoot() (string, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("read the working directory: %w", err)
	}
	root, err := project.RootDir(nil, cwd)
	if err != nil {
		return "", fmt.Errorf("find the project of %s: %w", cwd, err)
	}
	return root, nil
}

func cmdProjectMap(e *env, args []string) error {
	fs, asJSON := e.flags("project-map", "[PATH]")
	detail := fs.String("detail", "files", "files, or symbols (each type, function and method with its lines)")
	subpath := fs.String("subpath", "", "a directory under PATH to map alone")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{"give at most one directory: ihmt project-map client"}
	}
	root, err := projectRoot()
	if err != nil {
		return err
	}
	req := &ihmtv1.ProjectMapRequest{Root: root, Detail: *detail, Subpath: *subpath}
	if len(pos) == 1 {
		req.Path = pos[0]
	}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ProjectMapResponse, error) {
		return c.ProjectMap(e.ctx, req)
	}, func(resp *ihmtv1.ProjectMapResponse) error {
		fmt.Fprintf(e.stdout, "%s: %s, ~%d tokens in all (estimate: 4 characters a token)\n", root, plural(len(resp.GetFiles()), "file", "files"), resp.GetTotalTokens())
		if resp.GetTruncated() {
			fmt.Fprintln(e.stdout, "the list was cut: map a subpath (--subpath DIR)")
		}
		for _, d := range client.MapByDir(resp.GetFiles()) {
			fmt.Fprintf(e.stdout, "%s\n", d.Dir)
			for _, f := range d.Files {
				fmt.Fprintf(e.stdout, "  %s  %d tokens, %s\n", path.Base(f.GetPath()), f.GetTokens(), plural(int(f.GetLines()), "line", "lines"))
				for _, s := range f.GetSymbols() {
					fmt.Fprintf(e.stdout, "    %s %s %d-%d\n", s.GetKind(), s.GetName(), s.GetFirstLine(), s.GetLastLine())
				}
			}
		}
		return nil
	})
}

func cmdFindCode(e *env, args []string) error {
	fs, asJSON := e.flags("find-code", "QUERY...")
	scope := fs.String("scope", "main", "main (no tests), test or all")
	subpath := fs.String("subpath", "", "a directory to search alone")
	clue := fs.String("clue", "", "a word that tells apart the candidates of an ambiguous answer")
	maxTokens := fs.Int("max-tokens", 1500, "budget for the code shown")
	q, err := query(fs, args, "say what the code does: ihmt find-code where is the socket permission checked")
	if err != nil {
		return err
	}
	root, err := projectRoot()
	if err != nil {
		return err
	}
	req := &ihmtv1.FindCodeRequest{Root: root, Query: q, Scope: *scope, Subpath: *subpath, Clue: *clue, MaxTokens: int32(*maxTokens)}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.FindCodeResponse, error) {
		return c.FindCode(e.ctx, req)
	}, func(resp *ihmtv1.FindCodeResponse) error {
		fmt.Fprintf(e.stdout, "%s (confidence %s) — %s\n", ihmtv1.SearchStatusName(resp.GetStatus()), client.Confidence(resp.GetConfidence()), resp.GetMessage())
		for _, h := range resp.GetHits() {
			fmt.Fprintf(e.stdout, "\n%s:%d-%d  %s %s  [score %.3f]\n", h.GetPath(), h.GetFirstLine(), h.GetLastLine(), h.GetKind(), h.GetName(), h.GetScore())
			if h.GetCode() != "" {
				fmt.Fprintln(e.stdout, "  "+indentText(h.GetCode()))
			}
			if h.GetTruncated() {
				fmt.Fprintf(e.stdout, "  … cut to --max-tokens: ihmt read-file %s\n", h.GetPath())
			}
		}
		for _, h := range resp.GetCandidates() {
			fmt.Fprintf(e.stdout, "  - %s:%d-%d %s %s\n", h.GetPath(), h.GetFirstLine(), h.GetLastLine(), h.GetKind(), h.GetName())
		}
		if resp.GetStatus() == ihmtv1.SearchStatus_SEARCH_STATUS_AMBIGUOUS {
			fmt.Fprintln(e.stdout, "\nTell them apart with --clue WORD, or narrow with --subpath DIR.")
		}
		return nil
	})
}

func cmdReadFile(e *env, args []string) error {
	fs, asJSON := e.flags("read-file", "PATH")
	pos, err := ids(fs, args, 1, "give one file of the project: ihmt read-file client/cli/cli.go")
	if err != nil {
		return err
	}
	root, err := projectRoot()
	if err != nil {
		return err
	}
	req := &ihmtv1.ReadFileRequest{Root: root, Path: pos[0], Force: true}
	return call(e, *asJSON, func(c *client.Client) (*ihmtv1.ReadFileResponse, error) {
		return c.ReadFile(e.ctx, req)
	}, func(resp *ihmtv1.ReadFileResponse) error {
		fmt.Fprint(e.stdout, resp.GetText())
		fmt.Fprintf(e.stderr, "%s: %s, ~%d tokens\n", resp.GetPath(), plural(int(resp.GetLines()), "line", "lines"), resp.GetTokens())
		return nil
	})
}
