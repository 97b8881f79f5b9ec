package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

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
	// SameAs names the document of this run with the same content, for an
	// unchanged one: it is a copy, not something stored by an earlier run.
	SameAs string `json:"same_as,omitempty"`
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
	var f filing
	f.flags(fs, "when it became true, for leaves without a date of their own",
		"override the detected domain, e.g. software.go", "label for every leaf (repeatable)")
	skipRefused := fs.Bool("skip-refused", false, "a document refused for a secret does not fail the command (it is reported and left out; the rest is ingested either way)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageError{"give files, directories or - (stdin): ihmt ingest notes/ README.md"}
	}
	sc, err := saveScope(f.scope)
	if err != nil {
		return err
	}
	files, skipped, err := ingestFiles(pos)
	if err != nil {
		return err
	}
	like := &ihmtv1.IngestRequest{Type: *typ, Domain: f.domain, Tags: f.tags, Scope: sc, Date: f.date}
	e.files = true
	return e.withClient(func(c *client.Client) error {
		in := &ingester{e: e, c: c, asJSON: *asJSON, counts: map[string]int{}, like: like, prog: e.progress(*asJSON || len(files) < 2),
			seen: map[[32]byte]string{}, skipRefused: *skipRefused}
		for i, name := range files {
			r, err := in.document(name)
			if err != nil {
				return err
			}
			if !*asJSON {
				in.print(r, i, len(files))
			}
		}
		return in.report(len(files), skipped)
	})
}

// ingester sends documents one by one and tallies what became of them.
type ingester struct {
	e       *env
	c       *client.Client
	asJSON  bool
	like    *ihmtv1.IngestRequest // every document's request, but for its name and text
	results []ingestResult
	counts  map[string]int // by status, "error" for a document the daemon refused outright
	prog    *progress
	// seen maps the content of each document of this run to its name, so
	// that a copy reads as one, not as something an earlier run stored.
	seen        map[[32]byte]string
	copies      int
	skipRefused bool
}

// document ingests one file ("-" for stdin). One bad document does not stop
// the rest: it is reported, and the exit status says so. Only what stops
// every document — no daemon, an interrupt, a file that cannot be read — is
// an error.
func (in *ingester) document(name string) (ingestResult, error) {
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(os.Stdin, maxDocument+1))
		name = ""
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return ingestResult{}, fmt.Errorf("read %s: %w", name, err)
	}
	req := proto.Clone(in.like).(*ihmtv1.IngestRequest)
	req.Name, req.Content = name, string(data)
	resp, err := in.c.Ingest(in.e.ctx, req)
	if errors.Is(err, client.ErrUnavailable) || errors.Is(err, context.Canceled) {
		return ingestResult{}, fmt.Errorf("ingest %s: %w", displayName(name), err)
	}
	r := ingestResult{Name: displayName(name), Status: "error"}
	if err != nil {
		r.Message = err.Error()
	} else {
		r = ingestResult{Name: displayName(name), Status: ihmtv1.IngestStatusName(resp.GetStatus()), Type: resp.GetType(), Domain: resp.GetDomain(),
			IDs: resp.GetIds(), Superseded: resp.GetSuperseded(), Oversized: resp.GetOversized(), Message: resp.GetMessage()}
	}
	sum := sha256.Sum256(data)
	if first, ok := in.seen[sum]; ok && r.Status == "unchanged" {
		r.SameAs = first
		in.copies++
	} else {
		in.counts[r.Status]++
	}
	if _, ok := in.seen[sum]; !ok {
		in.seen[sum] = r.Name
	}
	in.results = append(in.results, r)
	return r, nil
}

// print is one document's line, and the progress of many on stderr.
func (in *ingester) print(r ingestResult, i, n int) {
	in.prog.clear()
	fmt.Fprintln(in.e.stdout, resultLine(r))
	in.prog.update("%d/%d files", i+1, n)
}

// resultLine says what became of one document.
func resultLine(r ingestResult) string {
	if r.Status == "error" {
		return fmt.Sprintf("%s: error: %s", r.Name, r.Message)
	}
	line := fmt.Sprintf("%s: %s", r.Name, r.Status)
	switch r.Status {
	case "saved", "pending_review":
		line += fmt.Sprintf(", %s (%s, %s)", plural(len(r.IDs), "leaf", "leaves"), r.Type, r.Domain)
		if len(r.Superseded) > 0 {
			line += fmt.Sprintf(", %s of the older version superseded", plural(len(r.Superseded), "leaf", "leaves"))
		}
		if r.Oversized > 0 {
			line += fmt.Sprintf(", %s kept whole although over the split size (one block that cannot be cut without breaking it)",
				plural(int(r.Oversized), "leaf", "leaves"))
		}
	}
	if r.SameAs != "" {
		return fmt.Sprintf("%s: the same text as %s, ingested above; nothing more written", r.Name, r.SameAs)
	}
	if r.Status == "unchanged" {
		line += " (stored by an earlier ingest; nothing written)"
	}
	if r.Message != "" && r.Status != "unchanged" {
		line += ": " + r.Message
	}
	return line
}

// plural counts n things: "1 leaf", "2 leaves".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// report sums up n documents and what was skipped; a refused or failed
// document fails the command.
func (in *ingester) report(n int, skipped []string) error {
	failed := in.counts["error"] > 0 || in.counts["refused"] > 0 && !in.skipRefused
	if in.asJSON {
		if err := in.e.printJSON(map[string]any{"documents": in.results, "skipped": skipped}); err != nil {
			return err
		}
	} else {
		in.prog.clear()
		for _, s := range skipped {
			fmt.Fprintf(in.e.stdout, "skipped %s\n", s)
		}
		fmt.Fprintf(in.e.stdout, "%s: %d saved, %d unchanged, %d pending review, %d refused, %d failed", plural(n, "document", "documents"),
			in.counts["saved"], in.counts["unchanged"], in.counts["pending_review"], in.counts["refused"], in.counts["error"])
		if in.copies > 0 {
			fmt.Fprintf(in.e.stdout, ", %s of another document in this run", plural(in.copies, "copy", "copies"))
		}
		fmt.Fprintln(in.e.stdout)
		if in.counts["refused"] > 0 {
			fmt.Fprintln(in.e.stdout, "The other documents were ingested all the same. Redact a refused one and ingest it again, or leave it out; --skip-refused keeps refusals from failing the command.")
		}
	}
	if failed {
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
