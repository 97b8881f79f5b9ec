#!/bin/sh
# Runs after the ihmt package is installed or upgraded (as root). An upgrade
# replaced /usr/bin/ihmtd, but a daemon that was running keeps the old
# version in memory: restart every user's ihmtd service that runs, so agents
# talk to the version they were installed with. Nothing here may fail the
# installation: a service that cannot be restarted is named, with the
# command its user can run.
# Each user manager has its runtime directory under /run/user (tests set
# IHMT_USER_RUNTIME_ROOT to a directory of their own).
for rundir in "${IHMT_USER_RUNTIME_ROOT:-/run/user}"/*; do
	[ -S "$rundir/systemd/private" ] || continue # no user manager there
	uid=${rundir##*/}
	user=$(getent passwd "$uid" | cut -d: -f1)
	[ -n "$user" ] || continue
	ctl() {
		# systemd 248+ reaches a user's manager with -M user@; older ones
		# through the user's own environment.
		systemctl --user -M "$user@" "$@" 2>/dev/null ||
			runuser -u "$user" -- env XDG_RUNTIME_DIR="$rundir" systemctl --user "$@" 2>/dev/null
	}
	ctl daemon-reload || true
	if ctl is-active --quiet ihmtd.service; then
		if ctl try-restart ihmtd.service; then
			echo "ihmt: restarted $user's ihmtd service on the installed version"
		else
			echo "ihmt: could not restart $user's ihmtd service: as $user, run systemctl --user restart ihmtd"
		fi
	fi
done
# A daemon an agent started on demand is no service: it runs the old version
# until it is idle for 30 minutes. Say how to replace it now.
if command -v pgrep >/dev/null 2>&1 && pgrep -x ihmtd >/dev/null 2>&1; then
	echo "ihmt: an ihmtd started on demand may still run the previous version; its user can run 'ihmt daemon stop' (the next agent call starts the installed one)"
fi
exit 0
