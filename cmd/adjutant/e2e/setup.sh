#!/usr/bin/env bash
# Sets up a private Dovecot (IMAP) and Postfix (SMTP) on 127.0.0.1 for `make e2e`.
#
#   - installs Debian's dovecot-imapd, dovecot-lmtpd and postfix when they are missing
#     (non-interactive, Postfix preseeded to "No configuration", no service started by
#     the packages);
#   - runs one instance of each from its own configuration under $E2E_DIR, written here
#     from the templates next to this script: nothing under /etc/dovecot or /etc/postfix
#     is used or changed, and no systemd is needed;
#   - every account is virtual: Dovecot passwd-file auth, maildirs under $E2E_DIR/mail,
#     Postfix accepting unauthenticated mail from 127.0.0.0/8 on port 25 and delivering
#     the domain $E2E_DOMAIN to Dovecot over LMTP; mail for any other domain is refused
#     (default_transport = error): nothing leaves the machine;
#   - starts from empty mailboxes every time (idempotent: safe to run again), waits until
#     both ports answer and prints the addresses.
#
# Run as root. Teardown: teardown.sh next to this script.
set -euo pipefail
export PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

here="$(cd "$(dirname "$0")" && pwd)"
E2E_DIR="${ADJUTANT_E2E_DIR:-/var/lib/adjutant-e2e}"
E2E_DOMAIN="${ADJUTANT_E2E_DOMAIN:-e2e.test}"
IMAP_PORT=143
SMTP_PORT=25
LMTP_PORT=24
VMAIL_USER=adjutant-e2e
# The accounts and their passwords (the Makefile's e2e target passes the same values to
# the test).
declare -A ACCOUNTS=(
	[adjutant]="${ADJUTANT_E2E_GAME_PASSWORD:-e2e-game-mailbox}"
	[us]="${ADJUTANT_E2E_US_PASSWORD:-e2e-us-mailbox}"
	[de]="${ADJUTANT_E2E_DE_PASSWORD:-e2e-de-mailbox}"
)

log() { printf 'e2e setup: %s\n' "$*"; }
die() { printf 'e2e setup: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (it installs packages and binds ports 25 and 143)"
# $E2E_DIR is wiped on every run: it must be a dedicated directory.
case "$E2E_DIR" in
/*/*e2e*) ;;
*) die "ADJUTANT_E2E_DIR=$E2E_DIR: want an absolute path to a dedicated directory whose name contains e2e" ;;
esac

t0=$(date +%s)

# --- Install ----------------------------------------------------------------------------
need=()
command -v dovecot >/dev/null 2>&1 || need+=(dovecot-core)
[ -x /usr/lib/dovecot/imap ] || need+=(dovecot-imapd)
[ -x /usr/lib/dovecot/lmtp ] || need+=(dovecot-lmtpd)
[ -x /usr/sbin/postfix ] || need+=(postfix)
if [ "${#need[@]}" -gt 0 ]; then
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
	echo "postfix postfix/mailname string $E2E_DOMAIN" | debconf-set-selections
	# Keep the packages from starting their services (Dovecot's would listen on every
	# interface with the stock configuration): a policy-rc.d that forbids it, for the
	# duration of the install only, unless the machine already has one.
	made_policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	cleanup_policy() { [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d; }
	trap cleanup_policy EXIT
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
		"${need[@]}" >/dev/null
	cleanup_policy
	trap - EXIT
	log "installed in $(($(date +%s) - t0))s"
else
	log "dovecot and postfix are installed"
fi
t1=$(date +%s)

# --- Stop a previous run, start from a clean state ---------------------------------------
bash "$here/teardown.sh" --quiet

for port in $IMAP_PORT $SMTP_PORT $LMTP_PORT; do
	if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
		die "port $port on 127.0.0.1 is already taken by another server (a system Dovecot or Postfix? stop it first)"
	fi
done

id -u "$VMAIL_USER" >/dev/null 2>&1 ||
	useradd --system --user-group --home-dir "$E2E_DIR/mail" --no-create-home --shell /usr/sbin/nologin "$VMAIL_USER"
vuid=$(id -u "$VMAIL_USER")
vgid=$(id -g "$VMAIL_USER")

rm -rf "$E2E_DIR"
mkdir -p "$E2E_DIR"/{dovecot,run,log,mail} "$E2E_DIR/postfix"/{etc,spool,data}
chmod 755 "$E2E_DIR" "$E2E_DIR/run" "$E2E_DIR/log"
chown "$VMAIL_USER:$VMAIL_USER" "$E2E_DIR/mail"
chmod 700 "$E2E_DIR/mail"

# --- Dovecot -----------------------------------------------------------------------------
: >"$E2E_DIR/dovecot/users"
: >"$E2E_DIR/postfix/etc/vmailbox"
for user in adjutant us de; do
	# user:password:uid:gid:(gecos):home:(shell):(extra)
	printf '%s@%s:{PLAIN}%s:%s:%s::%s::\n' "$user" "$E2E_DOMAIN" "${ACCOUNTS[$user]}" "$vuid" "$vgid" \
		"$E2E_DIR/mail/$E2E_DOMAIN/$user" >>"$E2E_DIR/dovecot/users"
	printf '%s@%s OK\n' "$user" "$E2E_DOMAIN" >>"$E2E_DIR/postfix/etc/vmailbox"
done
chown root:dovecot "$E2E_DIR/dovecot/users"
chmod 640 "$E2E_DIR/dovecot/users"

render() { # template > file, replacing @VAR@ placeholders
	sed -e "s|@E2E_DIR@|$E2E_DIR|g" -e "s|@DOMAIN@|$E2E_DOMAIN|g" -e "s|@VUID@|$vuid|g" -e "s|@VGID@|$vgid|g" \
		-e "s|@IMAP_PORT@|$IMAP_PORT|g" -e "s|@SMTP_PORT@|$SMTP_PORT|g" -e "s|@LMTP_PORT@|$LMTP_PORT|g" "$1" >"$2"
}
render "$here/dovecot.conf.in" "$E2E_DIR/dovecot/dovecot.conf"
doveconf -c "$E2E_DIR/dovecot/dovecot.conf" -n >/dev/null || die "dovecot.conf does not parse"
dovecot -c "$E2E_DIR/dovecot/dovecot.conf" </dev/null >/dev/null 2>&1 || die "dovecot did not start; see $E2E_DIR/log/dovecot.log"

# Log every account in once: its maildir, INBOX and the folder for handled mail (the
# daemon's move_to; "auto = create" in dovecot.conf) exist before the first mail.
for user in adjutant us de; do
	doveadm -c "$E2E_DIR/dovecot/dovecot.conf" mailbox status -u "$user@$E2E_DOMAIN" messages Processed >/dev/null ||
		die "cannot create the mailboxes of $user@$E2E_DOMAIN; see $E2E_DIR/log/dovecot.log"
done

# --- Postfix -----------------------------------------------------------------------------
render "$here/main.cf.in" "$E2E_DIR/postfix/etc/main.cf"
render "$here/master.cf.in" "$E2E_DIR/postfix/etc/master.cf"
chown postfix "$E2E_DIR/postfix/data"
pf=(postfix -c "$E2E_DIR/postfix/etc")
# "postfix start" checks the configuration and creates the queue directories.
"${pf[@]}" start </dev/null >"$E2E_DIR/log/postfix-start.log" 2>&1 ||
	die "postfix did not start: $(cat "$E2E_DIR/log/postfix-start.log"); see $E2E_DIR/log/postfix.log"

# --- Wait until both answer --------------------------------------------------------------
greeting() { # port -> the server's first line, or nothing
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1 && IFS= read -r line <&3 && printf '%s' \"\${line%\$'\\r'}\"" 2>/dev/null || true
}
deadline=$(($(date +%s) + 30))
while :; do
	imap=$(greeting $IMAP_PORT)
	smtp=$(greeting $SMTP_PORT)
	case "$imap" in "* OK"*) ;; *) imap="" ;; esac
	case "$smtp" in 220*) ;; *) smtp="" ;; esac
	[ -n "$imap" ] && [ -n "$smtp" ] && break
	[ "$(date +%s)" -lt "$deadline" ] || break
	sleep 0.2
done
[ -n "$imap" ] || die "IMAP 127.0.0.1:$IMAP_PORT does not answer; see $E2E_DIR/log/dovecot.log"
[ -n "$smtp" ] || die "SMTP 127.0.0.1:$SMTP_PORT does not answer; see $E2E_DIR/log/postfix.log"

t2=$(date +%s)
log "started in $((t2 - t1))s (total $((t2 - t0))s)"
cat <<EOF
IMAP  127.0.0.1:$IMAP_PORT  (no TLS, plaintext login)      $imap
SMTP  127.0.0.1:$SMTP_PORT   (no TLS, no auth, 127.0.0.0/8)  $smtp
accounts (login = address):
  adjutant@$E2E_DOMAIN  (the game mailbox; folder Processed)
  us@$E2E_DOMAIN
  de@$E2E_DOMAIN
mail: $E2E_DIR/mail   logs: $E2E_DIR/log
EOF
