#!/bin/sh
# Runs before the ihmt package is removed (as root). On a removal — not on
# the removal half of an upgrade (deb: "upgrade", rpm: $1 = 1) — stop every
# user's ihmtd service, since its binary is about to go. The users' stores
# stay where they are: they are the users' data.
case "$1" in
upgrade | 1) exit 0 ;;
esac
# Each user manager has its runtime directory under /run/user (tests set
# IHMT_USER_RUNTIME_ROOT to a directory of their own).
for rundir in "${IHMT_USER_RUNTIME_ROOT:-/run/user}"/*; do
	[ -S "$rundir/systemd/private" ] || continue
	uid=${rundir##*/}
	user=$(getent passwd "$uid" | cut -d: -f1)
	[ -n "$user" ] || continue
	systemctl --user -M "$user@" stop ihmtd.service 2>/dev/null ||
		runuser -u "$user" -- env XDG_RUNTIME_DIR="$rundir" systemctl --user stop ihmtd.service 2>/dev/null || true
done
exit 0
