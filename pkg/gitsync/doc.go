// Package gitsync keeps one memory across a person's machines by syncing
// the store's records through a git repository they choose: a bare
// repository on another disk, an ssh remote, a private repository on a
// hosting service.
//
// # Why the git CLI, not go-git
//
// Sync runs the git command line. It is on every developer's machine
// already, it speaks every transport and every credential helper, ssh
// agent and config the person has set up (go-git reimplements transports
// and would need its own), `git gc`, `git filter-repo` and the rest work on
// the repository sync leaves behind, and it adds no dependency to the
// daemon. Init checks its version (Need) and says what to install when it
// is missing.
//
// # What travels
//
// The work tree is <store>/sync: a git repository whose files never change
// once written, so that a merge is a union of files and cannot conflict.
//
//   - memories/<id[:2]>/<id>/<digest>.json: one version of one memory — its
//     complete header and its text, as `ihmt export` writes them — named
//     by the SHA-256 of its bytes. A save is a version; a forget, a purge,
//     a review decision or a link made later is another version of the
//     same memory, a new file beside the first. Two machines that write
//     the same version write the same file.
//   - devices/<device>.jsonl: each machine's own append-only journal of the
//     versions it published, hash-chained by pkg/journal with its anchor
//     beside it (devices/<device>.jsonl.anchor). One chain per device: a
//     single chain would fork on the first merge. Only its device writes
//     it, so it merges without conflict too, and every machine can verify
//     every device's chain.
//
// Derived files (index, tree, snapshots, catalog, facts) never travel:
// each machine rebuilds what it receives.
//
// # One rule decides
//
// A memory's versions are joined by leaf.Join, which is commutative,
// associative and idempotent: every machine ends with the same memory
// whatever order the versions arrived in. A forget and a purge win over
// any other change, a person's review decisions only move forward, links
// are a union, and two machines that saved the same text at once keep one
// memory (the earlier save's provenance). A restore cannot be expressed in
// that order: a memory forgotten on any machine stays forgotten on every
// machine that syncs, and `ihmt restore` of it is undone by the next sync,
// on the machine that restored it too (rejoin) — to bring it back, save
// what it said in other words (README). A version another device already
// published is never published again: each version is listed by the
// journal of the device that wrote it first.
//
// # The daemon stays the single writer
//
// Sync runs inside the daemon (ihmtd): it publishes the store's new
// versions into the work tree (screened for secrets again first: a refused
// version is named and stays local), commits, fetches, merges, and hands
// what arrived to store.Merge — the same admission as an import, with the
// same secret and instruction screens and review. A version whose file
// name is not the digest of its bytes, or that no device's verified
// journal vouches for, or that admission refuses, is named and never
// stored. A purge that arrives removes the text from this machine's
// files, and from the work tree; the git history still holds it, which
// README explains how to rewrite.
package gitsync
