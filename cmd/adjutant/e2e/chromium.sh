#!/usr/bin/env bash
# Installs Debian's chromium for `make e2e` when it is missing (non-interactive, without
# the recommended packages): TestRecordInChromium opens a game's record.html in it,
# headless. Run as root; a no-op when chromium is installed.
set -euo pipefail
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"
log() { printf 'e2e chromium: %s\n' "$*"; }
if command -v chromium >/dev/null 2>&1; then
	log "chromium is installed: $(chromium --version 2>/dev/null | head -1)"
	exit 0
fi
[ "$(id -u)" = 0 ] || { log "run as root (it installs chromium)" >&2; exit 1; }
t0=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
log "installed in $(($(date +%s) - t0))s: $(chromium --version 2>/dev/null | head -1)"
