package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ihmt-dev/ihmt/client"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// ingestResult is one document's outcome, for --json.
type ingestResult struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Type       string   `json:"type,omitempty"`
	Domain     string   `json:"domain,omitempty"`
	IDs        []string `json:"ids,omitempty"`
	Superseded []string `json:"superseded,omitempty"`
	Oversized  int32    `json:"oversized,omitempty"`
	Message    string   `json:"message,omitempty"`
}

// maxDocument is the daemon's limit on one document (16 MiB): larger files
// are skipped here rather than sent to be refused.
const maxDocument = 16 << 20

// skipDirs are directories an ingest of a tree never enters: tools' state,
// not the user's knowledge.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true, "__pycache__": true, ".venv": true, "target": true}

func cmdIngest(e *env, args []string) error {
	fs, asJSON := e.flags("ingest", "FILE|DIR|- ...")
	typ := fs.String("type", "", "override the detected type: code, narrative, temporal, clinical, process or generic")
	domain := fs.String("domain", "", "override the detected domain, e.g. software.go")
	scope := fs.String("scope", "", "global or project (default: the project when there is one)")
	date := fs.String("date", "", "when it became true, for leaves without a date of their own")
	var tags stringList
	fs.Var(&tags, "tag", "label for every leaf (repeatable)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"give files, directories or - (stdin): ihmt ingest notes/ README.md"}
	}
	sc, err := saveScope(*scope)
	if err != nil {
		return err
	}
	files, skipped, err := ingestFiles(pos)
	if err != nil {
		return err
	}
	c, err := e.client(true)
	if err != nil {
		return err
	}
	defer c.Close()
	var results []ingestResult
	counts := map[string]int{}
	for i, name := range files {
		var data []byte
		if name == "-" {
			data, err = io.ReadAll(io.LimitReader(os.Stdin, maxDocument+1))
			name = ""
		} else {
			data, err = os.ReadFile(name)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		req := &ihmtv1.IngestRequest{Name: name, Content: string(data), Type: *typ, Domain: *domain, Tags: tags, Scope: sc, Date: *date}
		resp, err := c.Ingest(e.ctx, req)
		if errors.Is(err, client.ErrUnavailable) || errors.Is(err, context.Canceled) {
			return fmt.Errorf("ingest %s: %w", displayName(name), err)
		}
		if err != nil {
			// One bad file does not stop the rest; it is reported and the
			// exit status says so.
			r := ingestResult{Name: displayName(name), Status: "error", Message: err.Error()}
			counts[r.Status]++
			results = append(results, r)
			if !*asJSON {
				fmt.Fprintf(e.stdout, "%s: error: %v\n", r.Name, err)
			}
			continue
		}
		r := ingestResult{Name: displayName(name), Status: lower(resp.GetStatus(), "INGEST_STATUS_"), Type: resp.GetType(), Domain: resp.GetDomain(),
			IDs: resp.GetIds(), Superseded: resp.GetSuperseded(), Oversized: resp.GetOversized(), Message: resp.GetMessage()}
		counts[r.Status]++
		results = append(results, r)
		if !*asJSON {
			line := fmt.Sprintf("%s: %s", r.Name, r.Status)
			switch r.Status {
			case "saved", "pending_review":
				line += fmt.Sprintf(", %d leaves (%s, %s)", len(r.IDs), r.Type, r.Domain)
				if len(r.Superseded) > 0 {
					line += fmt.Sprintf(", %d leaves of the older version superseded", len(r.Superseded))
				}
				if r.Oversized > 0 {
					line += fmt.Sprintf(", %d oversized", r.Oversized)
				}
			}
			if r.Message != "" && r.Status != "unchanged" {
				line += ": " + r.Message
			}
			fmt.Fprintln(e.stdout, line)
			if len(files) > 1 {
				fmt.Fprintf(e.stderr, "\r%d/%d files", i+1, len(files))
			}
		}
	}
	if *asJSON {
		if err := e.printJSON(map[string]any{"documents": results, "skipped": skipped}); err != nil {
			return err
		}
		if counts["refused"]+counts["error"] > 0 {
			return errReported
		}
		return nil
	}
	if len(files) > 1 {
		fmt.Fprint(e.stderr, "\r")
	}
	for _, s := range skipped {
		fmt.Fprintf(e.stdout, "skipped %s\n", s)
	}
	fmt.Fprintf(e.stdout, "%d documents: %d saved, %d unchanged, %d pending review, %d refused, %d failed\n", len(files),
		counts["saved"], counts["unchanged"], counts["pending_review"], counts["refused"], counts["error"])
	if counts["refused"]+counts["error"] > 0 {
		return errReported
	}
	return nil
}

func displayName(name string) string {
	if name == "" {
		return "stdin"
	}
	return name
}

// ingestFiles expands the arguments into absolute file paths (directories
// recursively, in name order) and says which files it skipped and why.
func ingestFiles(args []string) (files, skipped []string, err error) {
	for _, a := range args {
		if a == "-" {
			files = append(files, "-")
			continue
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, nil, err
		}
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("%w: check the path", err)
			}
			if d.IsDir() {
				if p != abs && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if why := unsuitable(p); why != "" {
				skipped = append(skipped, p+": "+why)
				return nil
			}
			files = append(files, p)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return files, skipped, nil
}

// unsuitable says why a file is not text to remember, or "".
func unsuitable(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	if st.Size() > maxDocument {
		return fmt.Sprintf("%d bytes, over the 16 MiB a document may have", st.Size())
	}
	if st.Size() == 0 {
		return "empty"
	}
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	head := make([]byte, 8192)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary"
	}
	// A multi-byte character cut at the end of the sample is fine.
	if !utf8.Valid(head) && (len(head) <= 4 || !utf8.Valid(head[:len(head)-4])) {
		return "not UTF-8 text"
	}
	return ""
}
