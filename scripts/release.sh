#!/usr/bin/env bash
# Builds an IHMT release without publishing anything:
#   - ihmt_VERSION_{linux,darwin}_{amd64,arm64}.tar.gz: bin/ihmtd, bin/ihmt-mcp, bin/ihmt, README.md,
#     LICENSE, and the service file for that system (the systemd user unit on Linux, the launchd
#     agent on macOS);
#   - ihmt_VERSION_{amd64,arm64}.deb and ihmt-VERSION-1.{x86_64,aarch64}.rpm (nfpm, pinned in
#     scripts/tools/go.mod): the binaries in /usr/bin, the systemd user unit in
#     /usr/lib/systemd/user; an upgrade restarts each user's running ihmtd service;
#   - ihmt.rb, a Homebrew formula for the archives (at IHMT_RELEASE_URL, default the GitHub
#     release of vVERSION);
#   - SHA256SUMS of all of the above.
# Every binary carries VERSION, the commit and the commit's date (`ihmt version`, `ihmtd -version`,
# the MCP server's version), and is built with -trimpath and without cgo, so the same commit
# gives the same binaries.
#
# Usage (from anywhere in the repository): scripts/release.sh VERSION [OUTDIR]
#   VERSION  a semantic version, e.g. 1.2.0 or 1.3.0-rc.1 (a leading v is dropped)
#   OUTDIR   where the files go (default dist/, which git ignores); emptied first
# IHMT_RELEASE_TARGETS="linux/amd64" builds fewer targets (CI's snapshot).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 || $1 == -h || $1 == --help ]]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	[[ $# -ge 1 && ($1 == -h || $1 == --help) ]] && exit 0
	exit 2
fi
VERSION=${1#v}
if ! [[ $VERSION =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$ ]]; then
	echo "release: $1 is not a semantic version such as 1.2.0 or 1.3.0-rc.1" >&2
	exit 2
fi
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${2:-dist}
[[ $OUT == /* ]] || OUT=$ROOT/$OUT
TARGETS=${IHMT_RELEASE_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
BASE_URL=${IHMT_RELEASE_URL:-https://github.com/ihmt-dev/ihmt/releases/download/v$VERSION}
export GOFLAGS=${GOFLAGS:--buildvcs=false}

COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [[ $COMMIT != unknown && -n $(git status --porcelain --untracked-files=no 2>/dev/null) ]]; then
	COMMIT=$COMMIT-dirty # built from a tree with uncommitted changes
fi
# The commit's own time, not the build's: rebuilding a commit gives the same bytes.
EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
DATE=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$EPOCH" +%Y-%m-%dT%H:%M:%SZ)
PKG=github.com/ihmt-dev/ihmt/pkg/version
LDFLAGS="-s -w -X $PKG.Version=$VERSION -X $PKG.Commit=$COMMIT -X $PKG.Date=$DATE"

rm -rf "$OUT"
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ihmt-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "release $VERSION (commit $COMMIT, $DATE) into $OUT"
echo "building nfpm (scripts/tools/go.mod)..."
go build -modfile=scripts/tools/go.mod -o "$WORK/nfpm" github.com/goreleaser/nfpm/v2/cmd/nfpm

# tarball DIR NAME: NAME.tar.gz of DIR's contents under NAME/, with fixed owners, order and times.
tarball() {
	tar --sort=name --mtime="@$EPOCH" --owner=0 --group=0 --numeric-owner \
		-C "$(dirname "$1")" -czf "$OUT/$2.tar.gz" "$(basename "$1")"
}

for target in $TARGETS; do
	goos=${target%/*} goarch=${target#*/}
	name=ihmt_${VERSION}_${goos}_${goarch}
	stage=$WORK/$name
	mkdir -p "$stage/bin"
	echo "building $target..."
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "$LDFLAGS" -o "$stage/bin/" \
		./daemon/cmd/ihmtd ./shim/cmd/ihmt-mcp ./client/cmd/ihmt
	cp README.md LICENSE "$stage/"
	case $goos in
	linux) cp deploy/package/ihmtd.service "$stage/" ;;
	darwin) cp deploy/package/dev.ihmt.ihmtd.plist "$stage/" ;;
	esac
	tarball "$stage" "$name"
	if [[ $goos == linux ]]; then
		for packager in deb rpm; do
			# nfpm expands variables in some fields but not in contents' paths: fill them in.
			sed -e "s|\${IHMT_VERSION}|$VERSION|g" -e "s|\${IHMT_ARCH}|$goarch|g" -e "s|\${IHMT_BIN}|$stage/bin|g" \
				deploy/package/nfpm.yaml >"$WORK/nfpm.yaml"
			SOURCE_DATE_EPOCH=$EPOCH "$WORK/nfpm" package --config "$WORK/nfpm.yaml" --packager "$packager" --target "$OUT/" >/dev/null
		done
	fi
done

# The Homebrew formula, for whichever archives were built.
# formula_os OS BLOCK: the formula's block for one system, with each archive built for it.
formula_os() {
	local arch block=
	for arch in arm64 amd64; do
		[[ -f $OUT/ihmt_${VERSION}_$1_$arch.tar.gz ]] || continue
		block+=$(printf '    %s do\n      url "%s/ihmt_%s_%s_%s.tar.gz"\n      sha256 "%s"\n    end' \
			"$([[ $arch == arm64 ]] && echo on_arm || echo on_intel)" "$BASE_URL" "$VERSION" "$1" "$arch" \
			"$(sha256sum "$OUT/ihmt_${VERSION}_$1_$arch.tar.gz" | cut -d' ' -f1)")$'\n'
	done
	[[ -n $block ]] && printf '\n  %s do\n%s  end\n' "$2" "$block"
	return 0
}
{
	cat <<EOF
# Homebrew formula for IHMT $VERSION, written by scripts/release.sh. Put it in a tap
# (Formula/ihmt.rb), then: brew install ihmt; brew services start ihmt (optional: ihmt-mcp
# and ihmt also start ihmtd on demand).
class Ihmt < Formula
  desc "Long-term memory for coding agents: a daemon, an MCP shim and a CLI"
  homepage "https://github.com/ihmt-dev/ihmt"
  version "$VERSION"
  license "MIT"
EOF
	formula_os darwin on_macos
	formula_os linux on_linux
	cat <<'EOF'

  def install
    bin.install "bin/ihmtd", "bin/ihmt-mcp", "bin/ihmt"
  end

  service do
    run [opt_bin/"ihmtd"]
    keep_alive successful_exit: false
    log_path var/"log/ihmtd.log"
    error_log_path var/"log/ihmtd.log"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/ihmt version")
    assert_match version.to_s, shell_output("#{bin}/ihmtd -version")
  end
end
EOF
} >"$OUT/ihmt.rb"

(cd "$OUT" && sha256sum -- *.tar.gz *.deb *.rpm ihmt.rb 2>/dev/null >SHA256SUMS)
echo "done:"
(cd "$OUT" && ls -l | tail -n +2 && sha256sum -c --quiet SHA256SUMS)
