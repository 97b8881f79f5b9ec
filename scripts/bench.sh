#!/bin/sh
# Runs the end-to-end benchmark from the repository root:
#   scripts/bench.sh            full run (the whole ladder)
#   scripts/bench.sh -quick     CI smoke run (small sizes, every phase)
#   scripts/bench.sh -json      figures as JSON on stdout
# Progress goes to stderr. See scripts/bench/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/bench "$@"
