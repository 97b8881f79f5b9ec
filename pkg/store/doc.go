// Package store is the memory engine the daemon owns: leaf files on disk, an
// append-only log that makes every mutation durable, and the in-memory index
// that answers searches.
//
// # Durability: the log first, group commit, leaves after
//
// Every mutation goes through one writer goroutine. It takes whatever saves
// have queued up, appends one log entry for each to log.jsonl (the entry
// carries the complete leaf), and fsyncs once for the whole batch — a group
// commit, so sixteen concurrent saves cost one sync, not sixteen. Only then
// does it publish the new memories to the index and acknowledge the callers:
// an acknowledged save is in the log on stable storage.
//
// The leaf files are then written by a second goroutine, atomically (temp
// file, sync, rename, directory sync) and in batches, off the acknowledgement
// path. If the process dies before a leaf reaches its file, the log still has
// it: Open replays the log and rewrites every leaf that is missing or does
// not match its checksum. So the leaf files and the log are each enough to
// rebuild the index, and deleting every derived file loses nothing.
//
// # Reads
//
// Searches run concurrently under a read lock on the index. The writer takes
// the write lock only to publish a batch that is already durable, so a
// reader sees a save entirely or not at all.
//
// # Where each concern lives
//
// The other half of the package is what the index keeps, what it derives
// and who may see it. Each concern has its file, whose comment says why it
// is shaped so:
//
//   - the store, its callers and the index it publishes to: store.go;
//     the names its callers use for its results (so the daemon needs no
//     other package of the engine): api.go; the directory's owner and
//     mode, checked before anything is trusted: perms.go.
//   - opening: open.go reads the leaf files in parallel while logindex.go
//     reads the log; replay.go applies what the files lack.
//   - the writer and its group commit: write.go; the leaf-file writer's
//     queue: leafqueue.go.
//   - admission — a save, an ingested document's blocks, an imported record
//     become leaves with their facts and trust, through one function:
//     admit.go; the callers' sides in save.go, ingest.go and export.go.
//   - export and import, as JSON lines: export.go.
//   - texts kept in their files, not in memory, and read back for an
//     answer (the few a search asks again kept in a bounded memo,
//     pkg/memo): texts.go.
//   - the facts and index snapshots that spare a start the extraction
//     and the tokenizing, checked against the leaves, the log and the
//     code that built them: snapshot.go;
//     fact and timeline queries: facts.go.
//   - the summary tree, kept off the save path by its own goroutine, and
//     never needed for a search to be right: tree.go.
//   - trust and review: trust is decided at admission (admit.go); a
//     person's review, forget, restore, purge and corrections: mutate.go.
//   - the audit log, and the audit entry a wide (scope=all) read leaves
//     before it answers: audit.go.
//   - probable supersessions, inferred when a memory is saved, listed and
//     undone by a person: succession.go (the policy that weighs the
//     evidence: pkg/succession).
//   - search: pkg/recall runs the pipeline; search.go checks the caller,
//     logs a wide read, and lends the pipeline a read-only view of the
//     store (reader) under the read lock, with the tree's descent
//     (Descend). The one model of what is current, which every surface
//     reads: currency.go.
//   - the briefing a session starts with: brief.go chooses its lines,
//     pkg/brief lays them out within the budget.
package store
