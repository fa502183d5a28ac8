#!/usr/bin/env bash
# Stops the Dovecot and Postfix instances that setup.sh started. Mailboxes and logs stay
# in $ADJUTANT_E2E_DIR for inspection until the next setup.sh. Safe to run at any time.
set -uo pipefail
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

E2E_DIR="${ADJUTANT_E2E_DIR:-/var/lib/adjutant-e2e}"
quiet=""
[ "${1:-}" = "--quiet" ] && quiet=1
log() { [ -n "$quiet" ] || printf 'e2e teardown: %s\n' "$*"; }

stopped=""
pfdir="$E2E_DIR/postfix/etc"
if [ -f "$pfdir/main.cf" ] && command -v postfix >/dev/null 2>&1; then
	if postfix -c "$pfdir" status >/dev/null 2>&1; then
		postfix -c "$pfdir" stop >/dev/null 2>&1 || true
		stopped=1
		log "postfix stopped"
	fi
fi

conf="$E2E_DIR/dovecot/dovecot.conf"
pidfile="$E2E_DIR/run/dovecot/master.pid"
if [ -f "$conf" ] && command -v dovecot >/dev/null 2>&1; then
	if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
		dovecot -c "$conf" stop >/dev/null 2>&1 || kill "$(cat "$pidfile")" 2>/dev/null || true
		stopped=1
		log "dovecot stopped"
	fi
fi

# Wait until the ports are free, so that a setup right after this one can bind them.
for i in $(seq 1 100); do
	[ -n "$stopped" ] || break
	busy=""
	for port in 143 25 24; do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then busy=1; fi
	done
	[ -n "$busy" ] || break
	sleep 0.1
done
exit 0
