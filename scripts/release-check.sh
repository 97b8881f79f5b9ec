#!/usr/bin/env bash
# Checks a release the way a person installs it, with no Go involved after the build:
#   1. scripts/release.sh builds a snapshot (this machine's linux architecture), and its
#      SHA256SUMS verify;
#   2. `dpkg -i` installs the .deb; `ihmt version` and `ihmtd -version` name the snapshot's
#      version and commit, and ihmt-mcp's MCP initialize answer its version;
#   3. through the installed binaries only (run from outside the source tree, with a throw-away
#      HOME): `ihmt demo`; `ihmt mcp install --client cursor` and `ihmt doctor` (which must pass);
#      a save and a search through an on-demand ihmtd;
#   4. the upgrade path: a newer snapshot installed over it while the older daemon still runs —
#      the newer ihmt names the older daemon as the one to restart, and after `ihmt daemon stop`
#      the installed version serves;
#   5. `dpkg -r` removes it: none of the package's files is left, and the user's store is.
# Run as root on a Debian machine (CI). --root DIR installs into DIR instead of / (dpkg --root,
# maintainer scripts run outside it), to try this on a machine whose /usr must not change.
#
# Usage (from the repository root): scripts/release-check.sh [--root DIR]
set -euo pipefail
# (Output is captured before grep -q reads it: grep -q stops at its match, and a producer
# that then writes into the closed pipe fails the pipeline under pipefail.)

root=/
case ${1:-} in
--root) root=$(realpath -m "${2:?--root needs a directory}") ;;
"") ;;
*)
	echo "release-check: unknown argument $1 (use --root DIR)" >&2
	exit 2
	;;
esac
cd "$(dirname "$0")/.."
for tool in dpkg dpkg-deb sha256sum; do
	command -v "$tool" >/dev/null || {
		echo "release-check: $tool is required (a Debian machine)" >&2
		exit 2
	}
done
[[ $(id -u) == 0 ]] || {
	echo "release-check: dpkg -i needs root" >&2
	exit 2
}

WORK=$(mktemp -d /tmp/ihmt-release-check.XXXXXX)
export HOME=$WORK/home # the throw-away user's home: their store goes here
unset IHMT_HOME IHMT_SOCKET XDG_CONFIG_HOME XDG_DATA_HOME XDG_RUNTIME_DIR
mkdir -p "$HOME"
DPKG=(dpkg)
BIN=/usr/bin
if [[ $root != / ]]; then
	mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
	touch "$root/var/lib/dpkg/status"
	DPKG=(dpkg --root="$root" --force-script-chrootless --force-not-root --log=/dev/null)
	BIN=$root/usr/bin
fi
cleanup() {
	local rc=$?
	[[ -S $sock ]] && "$BIN/ihmt" daemon stop >/dev/null 2>&1 || true
	"${DPKG[@]}" -r ihmt >/dev/null 2>&1 || true
	rm -rf "$WORK"
	exit "$rc"
}
sock=
trap cleanup EXIT
fail() {
	echo "FAIL  $*" >&2
	exit 1
}
pass() { echo "PASS  $*"; }

arch=$(dpkg --print-architecture)
v1=0.0.0-snapshot.1 v2=0.0.0-snapshot.2
for v in $v1 $v2; do
	IHMT_RELEASE_TARGETS=linux/$arch scripts/release.sh "$v" "$WORK/dist-$v" >"$WORK/release-$v.log" 2>&1 ||
		{
			cat "$WORK/release-$v.log"
			fail "scripts/release.sh $v"
		}
	(cd "$WORK/dist-$v" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS of $v"
done
deb1=$(ls "$WORK/dist-$v1"/ihmt_*_"$arch".deb)
deb2=$(ls "$WORK/dist-$v2"/ihmt_*_"$arch".deb)
pass "release.sh built $v1 and $v2 for linux/$arch; their checksums verify"

"${DPKG[@]}" -i "$deb1" >"$WORK/dpkg-i.log" 2>&1 || {
	cat "$WORK/dpkg-i.log"
	fail "dpkg -i $deb1"
}
commit=$(git rev-parse --short=12 HEAD)
grep -q "^ihmt $v1 (commit $commit" <<<"$("$BIN/ihmt" version)" || fail "ihmt version: $("$BIN/ihmt" version)"
grep -q "^ihmtd $v1 (commit $commit" <<<"$("$BIN/ihmtd" -version)" || fail "ihmtd -version: $("$BIN/ihmtd" -version)"
grep -q "^ihmt-mcp $v1 " <<<"$("$BIN/ihmt-mcp" -version)" || fail "ihmt-mcp -version"
# The version an agent sees: the MCP server's answer to initialize.
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-check","version":"1"}}}'
# Input stays open a moment: the shim stops at the end of its input, which can come before its answer.
grep -q "\"serverInfo\":{[^}]*\"version\":\"$v1\"" <<<"$({ echo "$init"; sleep 5; } | timeout 20 "$BIN/ihmt-mcp" 2>/dev/null)" ||
	fail "ihmt-mcp's initialize does not answer version $v1"
[[ -f $root/usr/lib/systemd/user/ihmtd.service ]] || fail "no systemd user unit installed"
pass "dpkg -i: $("$BIN/ihmtd" -version), the same in ihmt and in ihmt-mcp's initialize; the systemd user unit in /usr/lib/systemd/user"

# Nothing below may reach the source tree or Go: run from elsewhere, with a PATH of the
# installed binaries and the system's tools only.
cd "$WORK"
export PATH=$BIN:/usr/sbin:/usr/bin:/sbin:/bin
"$BIN/ihmt" demo >"$WORK/demo.log" 2>&1 || {
	cat "$WORK/demo.log"
	fail "ihmt demo"
}
grep -q "building" "$WORK/demo.log" && fail "the demo built from source instead of using the installed binaries"
pass "ihmt demo through the installed ihmtd and ihmt-mcp"

"$BIN/ihmt" mcp install --client cursor >"$WORK/mcp.log" 2>&1 || {
	cat "$WORK/mcp.log"
	fail "ihmt mcp install --client cursor"
}
grep -q "\"command\": \"$BIN/ihmt-mcp\"" "$HOME/.cursor/mcp.json" || fail "cursor's mcp.json does not register $BIN/ihmt-mcp"
"$BIN/ihmt" save "Release check: the staging box is called kestrel-$RANDOM." >/dev/null || fail "ihmt save"
sock=$("$BIN/ihmt" status --json | sed -n 's/.*"socket_path": *"\([^"]*\)".*/\1/p')
grep -q kestrel <<<"$("$BIN/ihmt" search --json staging box kestrel)" || fail "ihmt search"
"$BIN/ihmt" doctor >"$WORK/doctor.log" 2>&1 || {
	cat "$WORK/doctor.log"
	fail "ihmt doctor"
}
grep -q "^OK    cursor .*registered in $HOME/.cursor/mcp.json" "$WORK/doctor.log" || {
	cat "$WORK/doctor.log"
	fail "doctor does not read cursor's registration back"
}
pass "mcp install --client cursor, a save and a search, ihmt doctor: all good"

# The upgrade: the older daemon keeps running.
"${DPKG[@]}" -i "$deb2" >"$WORK/dpkg-upgrade.log" 2>&1 || {
	cat "$WORK/dpkg-upgrade.log"
	fail "dpkg -i $deb2 over $v1"
}
grep -q "^ihmt $v2 " <<<"$("$BIN/ihmt" version 2>&1)" || fail "after the upgrade: $("$BIN/ihmt" version)"
"$BIN/ihmt" search kestrel >"$WORK/skew.log" 2>&1 || true
grep -q "the running ihmtd is version $v1, older than this ihmt ($v2): restart the daemon" "$WORK/skew.log" || {
	cat "$WORK/skew.log"
	fail "the newer ihmt does not name the older daemon to restart"
}
"$BIN/ihmt" daemon stop >/dev/null
"$BIN/ihmt" search kestrel >"$WORK/after.log" 2>&1 || fail "search after the restart"
grep -q "older" "$WORK/after.log" && fail "still a version skew after the restart: $(cat "$WORK/after.log")"
grep -q "^ihmtd $v2 (running)" <<<"$("$BIN/ihmt" version)" || fail "the restarted daemon: $("$BIN/ihmt" version)"
pass "upgrade to $v2 over a running $v1 daemon: ihmt says to restart it; after a stop, $v2 serves"
"$BIN/ihmt" daemon stop >/dev/null
store=$(ls -d "$HOME"/.local/share/ihmt)

files=$(dpkg-deb -c "$deb2" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
"${DPKG[@]}" -r ihmt >"$WORK/dpkg-r.log" 2>&1 || {
	cat "$WORK/dpkg-r.log"
	fail "dpkg -r ihmt"
}
left=()
for f in $files; do
	[[ -e $root$f ]] && left+=("$f")
done
[[ ${#left[@]} == 0 ]] || fail "dpkg -r left ${left[*]}"
[[ -d $root/usr/share/doc/ihmt ]] && fail "dpkg -r left /usr/share/doc/ihmt"
grep -q '^Status: install' <<<"$("${DPKG[@]}" -s ihmt 2>/dev/null)" && fail "dpkg still lists ihmt as installed"
[[ -n $(ls "$store"/leaves 2>/dev/null) ]] || fail "the user's store $store is gone"
pass "dpkg -r: none of the package's $(wc -w <<<"$files") files left; the user's store stays ($store)"
