#!/bin/sh
# Runs the end-to-end benchmark from the repository root:
#   scripts/bench.sh            full run (the whole ladder)
#   scripts/bench.sh -quick     CI smoke run (small sizes, every phase)
#   scripts/bench.sh -json      figures as JSON on stdout
#   scripts/bench.sh -runs 3 -record r.json    three runs, medians, kept in r.json
#   scripts/bench.sh -table r.json             README's table from that record
#   scripts/bench.sh -baseline REV -runs 3     this tree against REV, same conditions
#   scripts/bench.sh -scale 1000000            a real ihmtd at 1M leaves
#   scripts/bench.sh -fts5=false               without SQLite FTS5 beside ihmtd (scripts/fts5)
# Progress goes to stderr. See scripts/bench/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/bench "$@"
