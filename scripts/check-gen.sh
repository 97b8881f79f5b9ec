#!/usr/bin/env bash
# CI check for the protobuf API: lint, formatting, backward compatibility and
# freshness of the committed generated Go code. Exits non-zero on any failure.
#
# Freshness approach: the code is regenerated into a temporary directory
# (`buf generate -o $tmp`, which prefixes the template's out: proto with
# $tmp) and every *.pb.go there is compared byte for byte with the committed
# one under proto/; *.pb.go files under proto/ that generation no longer
# produces (e.g. from a deleted .proto) also count as stale. This never writes
# to the working tree and does not depend on git state, so it gives the same
# answer on a fresh CI clone and on a developer's tree with uncommitted work
# (it checks the files as they are on disk, which is what would be committed).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOWORK=off # -modfile does not work in workspace mode

SNAPSHOT=proto/ihmt/v1/memory.binpb
buf() { go tool -modfile=scripts/tools/go.mod buf "$@"; }

fail=0
step() { echo "check-gen: $*"; }
problem() { echo "check-gen: FAIL: $*" >&2; fail=1; }

step "building buf (first run takes ~1.5-3 min)…"
buf --version >/dev/null

step "buf lint"
buf lint || problem "buf lint found problems (see above)"

step "buf format -d --exit-code"
buf format -d --exit-code || problem "the .proto files are not formatted: run scripts/gen.sh and commit"

step "buf breaking --against $SNAPSHOT"
if [[ -f "$SNAPSHOT" ]]; then
  buf breaking --against "$SNAPSHOT" ||
    problem "backward-incompatible change against $SNAPSHOT (see above)"
else
  problem "$SNAPSHOT is missing: run scripts/gen.sh --update-snapshot and commit"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

step "buf generate into a temporary directory"
if buf generate --template scripts/buf.gen.yaml -o "$tmp"; then
  stale=()
  # Every freshly generated file must exist, identical, in the tree.
  while IFS= read -r -d '' f; do
    rel=${f#"$tmp"/}
    cmp -s "$f" "$rel" || stale+=("$rel")
  done < <(find "$tmp/proto" -type f -name '*.pb.go' -print0)
  # Every committed generated file must still be produced.
  while IFS= read -r -d '' f; do
    [[ -f "$tmp/$f" ]] || stale+=("$f (no longer generated)")
  done < <(find proto -type f -name '*.pb.go' -print0)
  if ((${#stale[@]})); then
    printf 'check-gen:   stale: %s\n' "${stale[@]}" >&2
    problem "generated code is stale: run scripts/gen.sh and commit"
  fi
else
  problem "buf generate failed (see above)"
fi

# Informational only: the snapshot is a deliberately updated baseline, so it
# may lag behind additive changes to the .proto.
if [[ -f "$SNAPSHOT" ]] && buf build -o "$tmp/current.binpb" &&
  ! cmp -s "$tmp/current.binpb" "$SNAPSHOT"; then
  step "note: $SNAPSHOT is older than the .proto (fine for compatible changes; refresh with scripts/gen.sh --update-snapshot when releasing)"
fi

if ((fail)); then
  echo "check-gen: FAILED" >&2
  exit 1
fi
step "OK"
