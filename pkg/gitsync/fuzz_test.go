package gitsync

import (
	"encoding/json"
	"testing"
)

// FuzzParseRecordPath: a path from the remote is a version's name only when
// it is exactly memories/<id[:2]>/<id>/<digest>.json, and then the parts it
// returns rebuild it.
func FuzzParseRecordPath(f *testing.F) {
	f.Add("memories/3f/3f2a9c1b7d4e5f60/0123456789abcdef0123456789abcdef.json")
	f.Add("memories/3f/3f2a9c1b7d4e5f60/../../../etc/passwd")
	f.Add("memories/aa/3f2a9c1b7d4e5f60/0123456789abcdef0123456789abcdef.json")
	f.Fuzz(func(t *testing.T, p string) {
		id, sum, ok := parseRecordPath(p)
		if !ok {
			return
		}
		if recordPath(id, sum) != p {
			t.Fatalf("%q parsed as %s %s, which name %q", p, id, sum, recordPath(id, sum))
		}
	})
}

// FuzzDecodeRecord: whatever bytes a remote holds, decoding never panics,
// and what decodes encodes again.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"id":"3f2a9c1b7d4e5f60","scope":"global","trust":"asserted","status":"active","checksum":"sha256:00","text":"x"}`))
	f.Add([]byte(`{"id":1}`))
	f.Add([]byte(`{"text":"a","extra":true}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := decodeRecord(data)
		if err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
	})
}
