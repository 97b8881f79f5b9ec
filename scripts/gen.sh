#!/usr/bin/env bash
# Regenerate the Go code for the IHMT API from proto/ (the source of truth).
#
#   scripts/gen.sh                    format + lint the .proto, regenerate *.pb.go
#   scripts/gen.sh --update-snapshot  also rewrite proto/ihmt/v1/memory.binpb, the
#                                     descriptor snapshot that `buf breaking`
#                                     compares against (do this deliberately,
#                                     e.g. when an API version is released)
#
# buf comes from the separate tools module scripts/tools (it needs a newer
# google.golang.org/protobuf than the main module uses); protoc-gen-go and
# protoc-gen-go-grpc come from the main go.mod via `go tool`.
set -euo pipefail

usage() { echo "usage: scripts/gen.sh [--update-snapshot]" >&2; exit 2; }

update_snapshot=false
for arg in "$@"; do
  case "$arg" in
    --update-snapshot) update_snapshot=true ;;
    -h|--help) usage ;;
    *) echo "gen: unknown argument: $arg" >&2; usage ;;
  esac
done

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOWORK=off # -modfile does not work in workspace mode

SNAPSHOT=proto/ihmt/v1/memory.binpb
buf() { go tool -modfile=scripts/tools/go.mod buf "$@"; }

echo "gen: building buf (first run takes ~1.5-3 min)…"
buf --version >/dev/null
echo "gen: building protoc-gen-go and protoc-gen-go-grpc…"
go tool protoc-gen-go --version >/dev/null
go tool protoc-gen-go-grpc --version >/dev/null

echo "gen: buf format -w"
buf format -w
echo "gen: buf lint"
buf lint

# Remove old generated files first so that code for a deleted .proto does not
# linger. Only *.pb.go files are removed; clean: false in the template keeps
# buf itself from touching anything else under proto/.
find proto -type f -name '*.pb.go' -delete
echo "gen: buf generate"
buf generate --template scripts/buf.gen.yaml

if "$update_snapshot"; then
  echo "gen: buf build -o $SNAPSHOT"
  buf build -o "$SNAPSHOT"
fi
echo "gen: done"
