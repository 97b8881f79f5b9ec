package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// The schema a memory tool on SQLite would write: the memories in a table,
// and an FTS5 index over their text kept by a trigger (an external-content
// table, so each text is stored once).
var schema = []string{
	`CREATE TABLE IF NOT EXISTS memories (
		id INTEGER PRIMARY KEY,
		project TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		text TEXT NOT NULL)`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(text, content='memories', content_rowid='id')`,
	`CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
		INSERT INTO memories_fts(rowid, text) VALUES (new.id, new.text);
	END`,
}

const insertSQL = `INSERT INTO memories(project, created_at, text) VALUES (?, ?, ?)`

// searchSQL ranks by bm25 (FTS5's rank) and keeps the first k; the default
// scope adds the project filter.
const (
	searchAllSQL = `SELECT m.id, m.text FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
		WHERE memories_fts MATCH ? ORDER BY memories_fts.rank LIMIT ?`
	searchDefaultSQL = `SELECT m.id, m.text FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid
		WHERE memories_fts MATCH ? AND m.project IN ('', ?) ORDER BY memories_fts.rank LIMIT ?`
)

// dsn is the database at path with the durability a memory tool promises:
// WAL with synchronous=FULL (every commit fsyncs the WAL), writers waiting
// up to 30 s for the lock, and BEGIN IMMEDIATE so a writer takes the lock
// when its transaction starts rather than failing to upgrade later.
func dsn(path string) string {
	q := url.Values{}
	for _, p := range []string{"busy_timeout(30000)", "journal_mode(WAL)", "synchronous(FULL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// openDB opens (creating if needed) the database at path with at most
// conns connections, and makes the schema.
func openDB(ctx context.Context, path string, conns int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	for _, s := range schema {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("schema of %s: %w", path, err)
		}
	}
	return db, nil
}

// querier is a connection of its own (*sql.Conn) or the pool (*sql.DB).
type querier interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// save stores one memory in a transaction of its own, as a tool does for
// each save_memory call; it returns when the commit is durable.
func save(ctx context.Context, q querier, m Memory) error {
	tx, err := q.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if _, err := tx.ExecContext(ctx, insertSQL, m.Project, time.Now().UnixMilli(), m.Text); err != nil {
		tx.Rollback()
		return fmt.Errorf("insert: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// saveBatch stores memories in one transaction: the bulk load.
func saveBatch(ctx context.Context, db *sql.DB, ms []Memory) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer st.Close()
	now := time.Now().UnixMilli()
	for _, m := range ms {
		if _, err := st.ExecContext(ctx, m.Project, now, m.Text); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
	}
	return tx.Commit()
}

// Scope is which memories a search sees, as ihmtd's scopes do.
type Scope string

const (
	ScopeDefault Scope = "default" // global memories and the caller's project's
	ScopeAll     Scope = "all"
)

// search answers query with at most limit memories, best first, reading
// their texts as a tool's answer would; it returns how many it found.
func search(ctx context.Context, q querier, query string, scope Scope, project string, limit int) (int, error) {
	expr := matchExpr(query)
	if expr == "" {
		return 0, nil // nothing a full-text index can look up
	}
	var rows *sql.Rows
	var err error
	if scope == ScopeAll {
		rows, err = q.QueryContext(ctx, searchAllSQL, expr, limit)
	} else {
		rows, err = q.QueryContext(ctx, searchDefaultSQL, expr, project, limit)
	}
	if err != nil {
		return 0, fmt.Errorf("search %q: %w", expr, err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			return n, fmt.Errorf("search %q: %w", expr, err)
		}
		n++
	}
	return n, rows.Err()
}

// matchExpr turns a question as an agent sends it into an FTS5 query: each
// word quoted (so FTS5's operators and punctuation in it are plain text, and
// a word such as eu-west-1 is a phrase of its tokens) and the words joined
// by OR, so bm25 ranks memories by the words they share with the question.
// An AND of every word would find nothing for most questions ("what did we
// decide about …"); ihmtd answers from any shared word as well. Words
// without a letter or digit add nothing and are dropped, and repeats once.
func matchExpr(query string) string {
	var terms []string
	seen := map[string]bool{}
	for _, w := range strings.Fields(query) {
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		t := `"` + strings.ReplaceAll(w, `"`, `""`) + `"`
		if k := strings.ToLower(t); !seen[k] {
			seen[k] = true
			terms = append(terms, t)
		}
	}
	return strings.Join(terms, " OR ")
}

// sqliteVersion is the SQLite library's version, for the report.
func sqliteVersion(ctx context.Context, db *sql.DB) string {
	var v string
	if err := db.QueryRowContext(ctx, `SELECT sqlite_version()`).Scan(&v); err != nil {
		return "unknown"
	}
	return v
}
