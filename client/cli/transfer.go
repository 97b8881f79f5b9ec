package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Export and import: the memory leaves and arrives as plain JSON lines, and
// a store of the original Python IHMT can be migrated.

func cmdExport(e *env, args []string) error {
	fs, asJSON := e.flags("export", "> memories.jsonl")
	scope := fs.String("scope", "all", "all (every project), default (global + this project), project or global")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	sc, err := searchScope(*scope)
	if err != nil {
		return err
	}
	return e.withClient(func(c *client.Client) error { return e.export(c, sc, *scope, *asJSON) })
}

// export writes every record in scope (its word) to stdout, with progress
// and the closing count on stderr. The records are JSON lines whether or
// not --json is given; with it, the count is a JSON object too, and no
// progress is shown.
func (e *env) export(c *client.Client, sc ihmtv1.SearchScope, scope string, asJSON bool) error {
	w := bufio.NewWriter(e.stdout)
	n, prog := 0, e.progress(asJSON)
	for offset := int64(0); ; {
		resp, err := c.Export(e.ctx, &ihmtv1.ExportRequest{Scope: sc, Offset: offset})
		if err != nil {
			return err
		}
		for _, r := range resp.GetRecords() {
			w.WriteString(r)
			w.WriteByte('\n')
		}
		n += len(resp.GetRecords())
		if offset = resp.GetNextOffset(); offset == 0 {
			break
		}
		prog.update("exported %d memories…", n)
	}
	prog.clear()
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write export: %w", err)
	}
	if asJSON {
		b, _ := json.Marshal(map[string]any{"exported": n, "scope": scope})
		fmt.Fprintf(e.stderr, "%s\n", b)
		return nil
	}
	fmt.Fprintf(e.stderr, "exported %s (%s)\n", plural(n, "memory", "memories"), scope)
	return nil
}

// importBatch and importBytes bound one Import call, well inside the
// daemon's message limit.
const (
	importBatch = 1000
	importBytes = 8 << 20
)

func cmdImport(e *env, args []string) error {
	fs, asJSON := e.flags("import", "FILE.jsonl | - | --from-ihmt-python DIR")
	python := fs.String("from-ihmt-python", "", "migrate the store of the original Python IHMT in DIR")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *python != "" {
		if len(pos) != 0 {
			return usageError{"give either a file or --from-ihmt-python DIR, not both"}
		}
		return importPython(e, *python, *asJSON)
	}
	if len(pos) != 1 {
		return usageError{"give the file an export wrote: ihmt import memories.jsonl (or - for stdin)"}
	}
	var r io.Reader = os.Stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fmt.Errorf("%w: check the path", err)
		}
		defer f.Close()
		r = f
	}
	var imp *importer
	if err := e.withClient(func(c *client.Client) error {
		imp = &importer{e: e, c: c, prog: e.progress(*asJSON)}
		if err := imp.records(r, pos[0]); err != nil {
			return err
		}
		return imp.flush()
	}); err != nil {
		return err
	}
	if *asJSON {
		return e.printJSON(map[string]any{"records": imp.total, "imported": imp.imported, "unchanged": imp.unchanged,
			"skipped": imp.skipped, "skipped_note": strings.Join(imp.notes, ", ")})
	}
	imp.prog.clear()
	fmt.Fprintf(e.stdout, "%s: %d imported, %d already stored exactly\n", plural(int(imp.total), "record", "records"), imp.imported, imp.unchanged)
	if imp.skipped > 0 {
		fmt.Fprintf(e.stdout, "%d skipped: %s — the memory was forgotten or purged after this export, and that outranks it\n", imp.skipped, strings.Join(imp.notes, ", "))
	}
	return nil
}

// importer sends an export's records in batches and counts what became of
// them.
type importer struct {
	e    *env
	c    *client.Client
	prog *progress

	batch                      []string
	size                       int
	total, imported, unchanged int64
	skipped                    int64
	notes                      []string // each batch's skipped note
}

// records reads one record a line from r (the file name), sending a batch
// whenever one is full.
func (imp *importer) records(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 4<<20) // a record holds at most 1 MiB of text
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if imp.size+len(line) > importBytes {
			if err := imp.flush(); err != nil {
				return err
			}
		}
		imp.total++
		imp.batch = append(imp.batch, line)
		imp.size += len(line)
		if len(imp.batch) == importBatch {
			if err := imp.flush(); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

// flush sends the records gathered so far.
func (imp *importer) flush() error {
	if len(imp.batch) == 0 {
		return nil
	}
	resp, err := imp.c.Import(imp.e.ctx, &ihmtv1.ImportRequest{Records: imp.batch})
	if err != nil {
		return fmt.Errorf("records %d-%d: %w", imp.total-int64(len(imp.batch))+1, imp.total, err)
	}
	imp.imported += resp.GetImported()
	imp.unchanged += resp.GetUnchanged()
	imp.skipped += resp.GetSkipped()
	if n := resp.GetSkippedNote(); n != "" {
		imp.notes = append(imp.notes, n)
	}
	imp.batch, imp.size = imp.batch[:0], 0
	imp.prog.update("imported %d records…", imp.total)
	return nil
}

// pythonLeaf is a leaf of the original Python IHMT: a JSON header between
// "<<<IHMT-META" and "IHMT-META>>>" lines, then the text.
type pythonLeaf struct {
	LeafID    string          `json:"leaf_id"`
	Timestamp json.RawMessage `json:"timestamp"`
	DataType  string          `json:"data_type"`
	Domain    string          `json:"domain"`
	Tags      []string        `json:"tags"`
}

// PythonImportAgent is the agent every migrated memory is recorded under.
const PythonImportAgent = "ihmt-python import"

// importPython migrates DIR/ihmt_memory/layer_0/<domain>/*.txt: every leaf
// becomes a global memory with its timestamp as valid_from, its domain and
// tags. Branches, the root and the catalog are derived data and are rebuilt
// here, and so is the fact timeline (from the texts), so state/facts.json is
// not read.
func importPython(e *env, dir string, asJSON bool) error {
	layer0, files, err := pythonLeaves(dir)
	if err != nil {
		return err
	}
	caller, err := e.caller()
	if err != nil {
		return err
	}
	caller.AgentName, caller.AgentVersion = PythonImportAgent, version.Version
	c, err := client.New(client.Options{Socket: e.socket, Caller: caller, AutoStart: true})
	if err != nil {
		return err
	}
	defer c.Close()
	counts, prog := map[string]int{}, e.progress(asJSON)
	var problems []string
	for i, path := range files {
		req, err := readPythonLeaf(path)
		if err != nil {
			counts["unreadable"]++
			problems = append(problems, err.Error())
			continue
		}
		resp, err := c.Save(e.ctx, req)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", path, err)
		}
		counts[ihmtv1.SaveStatusName(resp.GetStatus())]++
		prog.update("migrated %d of %d leaves…", i+1, len(files))
	}
	if asJSON {
		return e.printJSON(map[string]any{"leaves": len(files), "outcomes": counts, "problems": problems})
	}
	prog.clear()
	fmt.Fprintf(e.stdout, "%s from %s: %d saved, %d already stored, %d pending review, %d refused, %d unreadable\n", plural(len(files), "leaf", "leaves"), layer0,
		counts["saved"], counts["duplicate"], counts["pending_review"], counts["refused"], counts["unreadable"])
	for _, p := range problems {
		fmt.Fprintf(e.stdout, "  %s\n", p)
	}
	return nil
}

// pythonLeaves finds the leaf files of the Python store in dir (its
// ihmt_memory/layer_0, or dir/layer_0), in name order.
func pythonLeaves(dir string) (layer0 string, files []string, err error) {
	layer0 = filepath.Join(dir, "ihmt_memory", "layer_0")
	if _, err := os.Stat(layer0); err != nil {
		if alt := filepath.Join(dir, "layer_0"); dirExists(alt) {
			layer0 = alt
		} else {
			return "", nil, fmt.Errorf("no Python IHMT store in %s: expected %s (the directory that holds ihmt_memory/)", dir, layer0)
		}
	}
	err = filepath.WalkDir(layer0, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".txt") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", layer0, err)
	}
	sort.Strings(files)
	return layer0, files, nil
}

var labelUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// readPythonLeaf turns one Python IHMT leaf into a save.
func readPythonLeaf(path string) (*ihmtv1.SaveRequest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	const open, closing = "<<<IHMT-META", "IHMT-META>>>"
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(data, "\ufeff"), []byte(open))
	if !ok {
		return nil, fmt.Errorf("%s: no %s header", path, open)
	}
	hdr, text, ok := bytes.Cut(rest, []byte(closing))
	if !ok {
		return nil, fmt.Errorf("%s: no closing %s line", path, closing)
	}
	var h pythonLeaf
	if err := json.Unmarshal(hdr, &h); err != nil {
		return nil, fmt.Errorf("%s: header: %v", path, err)
	}
	text = bytes.TrimPrefix(bytes.TrimPrefix(text, []byte("\r")), []byte("\n"))
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, fmt.Errorf("%s: empty text", path)
	}
	req := &ihmtv1.SaveRequest{Content: string(text), Scope: ihmtv1.Scope_SCOPE_GLOBAL}
	if t, err := pythonTime(h.Timestamp); err != nil {
		return nil, fmt.Errorf("%s: timestamp: %v", path, err)
	} else if !t.IsZero() {
		req.Date = t.UTC().Format(time.RFC3339)
	}
	domain := h.Domain
	if domain == "" {
		domain = filepath.Base(filepath.Dir(path))
	}
	req.Domain = strings.Trim(labelUnsafe.ReplaceAllString(domain, "-"), "-.")
	for _, t := range h.Tags {
		if t = strings.Trim(labelUnsafe.ReplaceAllString(t, "-"), "-."); t != "" && len(req.Tags) < 32 {
			req.Tags = append(req.Tags, t)
		}
	}
	return req, nil
}

// pythonTime reads a timestamp as the Python tool wrote it: ISO 8601 text
// (with or without a zone) or seconds since the epoch.
func pythonTime(raw json.RawMessage) (time.Time, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return time.Time{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		s = string(raw)
	}
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not an ISO 8601 date or epoch seconds: " + s)
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
