package gitsync

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// The work tree's layout (see the package comment).
const (
	workDir     = "sync"
	memoriesDir = "memories"
	devicesDir  = "devices"
	journalExt  = ".jsonl"
	recordExt   = ".json"
	// digestLen is how many hex digits of a version's SHA-256 name its
	// file: 128 bits, more than enough to never collide by chance.
	digestLen = 32
)

// ignored is the work tree's .gitignore: the temporary files an atomic
// write leaves behind if it is killed never travel.
const ignored = ".*.tmp*\n"

// attributes keeps git from touching a record's bytes (line endings):
// its name is their digest.
const attributes = "* -text\n"

// record is one version of a memory as `ihmt export` writes it.
type record struct {
	leaf.Header
	Text string `json:"text"`
}

// digest names a version's file: the SHA-256 of its bytes.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:digestLen]
}

// recordPath is where version data of memory id lives, relative to the
// work tree.
func recordPath(id, sum string) string {
	return filepath.ToSlash(filepath.Join(memoriesDir, id[:2], id, sum+recordExt))
}

var recordName = regexp.MustCompile(`^memories/([0-9a-f]{2})/([0-9a-f]{16})/([0-9a-f]{32})\.json$`)

// parseRecordPath reads a work-tree path as a version's: the memory's id
// and the digest its name claims; ok is false for anything else.
func parseRecordPath(p string) (id, sum string, ok bool) {
	m := recordName.FindStringSubmatch(filepath.ToSlash(p))
	if m == nil || m[2][:2] != m[1] {
		return "", "", false
	}
	return m[2], m[3], true
}

// fileData is a version's file content: the exported record and a newline.
func fileData(rec string) []byte { return []byte(rec + "\n") }

// decodeRecord reads a version's file.
func decodeRecord(data []byte) (record, error) {
	var r record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return record{}, fmt.Errorf("not a memory record: %v", err)
	}
	return r, nil
}

// publication is one line of a device's journal: the device published a
// version of a memory.
type publication struct {
	Seq    int64     `json:"seq"`
	Time   time.Time `json:"time"`
	Op     string    `json:"op"`
	Device string    `json:"device"`
	ID     string    `json:"id"`
	Record string    `json:"record"`
	Status string    `json:"status,omitempty"`
}

const opPublish = "publish"

func journalPath(tree, device string) string {
	return filepath.Join(tree, devicesDir, device+journalExt)
}

// readPublished returns the digests a device's journal lists, and the
// number of its lines.
func readPublished(path string) (map[string]publication, int64, error) {
	out := map[string]publication{}
	var n int64
	err := journal.Read(path, func(line []byte) error {
		n++
		var p publication
		if json.Unmarshal(line, &p) == nil && p.Op == opPublish {
			out[p.Record] = p
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return out, 0, nil
	}
	return out, n, err
}

// devices lists the devices whose journals the work tree holds.
func devices(tree string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(tree, devicesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), journalExt); ok && validDevice(name) {
			out = append(out, name)
		}
	}
	return out, nil
}

var deviceName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,47}$`)

func validDevice(d string) bool { return deviceName.MatchString(d) }

// newDevice makes a device id from the host name and random digits: stable
// once chosen (it is kept in the repository's local state), readable in a
// log, and unique even when two machines share a host name.
func newDevice() (string, error) {
	host, _ := os.Hostname()
	var b strings.Builder
	for _, r := range strings.ToLower(host) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == '-' || r == '.' || r == '_':
			b.WriteByte('-')
		}
		if b.Len() >= 24 {
			break
		}
	}
	name := strings.Trim(b.String(), "-")
	if name == "" {
		name = "device"
	}
	var rnd [3]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("choose a device id: %w", err)
	}
	return name + "-" + hex.EncodeToString(rnd[:]), nil
}
