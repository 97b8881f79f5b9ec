#!/bin/sh
# Runs the end-to-end benchmark from the repository root:
#   scripts/bench.sh            full run (a few minutes)
#   scripts/bench.sh -quick     CI smoke run (< 30 s)
#   scripts/bench.sh -json      figures as JSON on stdout
# Progress goes to stderr. See scripts/bench/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/bench "$@"
