# Adjutant. `make demo` plays a sample game; `make test` runs every test.
SHELL := /bin/bash
GO ?= go

.PHONY: all build demo test check vet fmt fuzz bench clean

all: build

build:
	$(GO) build -o bin/adjutant ./cmd/adjutant

# The main job on an embedded default: the sample match of Soldiers 1918 (two games, 4.2).
# Embedded IMAP and SMTP servers start on 127.0.0.1, the daemon serves them, and two
# scripted players mail their orders over SMTP and read every reply over IMAP; every mail
# is printed as delivered, then the audit verification and the replay of both games.
# (go run ./cmd/adjutant demo --pipe plays the same match through pipe mode.)
demo:
	$(GO) run ./cmd/adjutant demo

# Every test. CI (.ci/run) runs exactly this. The fault test of invariant 2 needs the
# daemon's kill hook, which only a build with the tag killhook has (not the binary
# `make build` makes): it runs in a test binary of its own.
# cmd/adjutant plays every demo game to its end (about 5 minutes on 2 idle cores): go
# test's default 10-minute limit per package leaves too little room on a busy machine.
test: vet
	$(GO) test -count=1 -timeout 25m ./...
	$(GO) test -count=1 -tags killhook -run '^TestKilledBetweenCommitAndFlag$$' ./cmd/adjutant/

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags killhook ./cmd/adjutant/

check: test
	$(GO) test -count=1 -race ./...

# Each fuzz target for a while (FUZZTIME=30s by default): every func Fuzz... in a test
# file, found afresh each run, so that a new target is never left out of the list.
FUZZTIME ?= 30s
fuzz:
	@set -e; for f in $$(git grep -l '^func Fuzz' -- '*_test.go'); do \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "== $$t ./$$(dirname $$f)/"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./$$(dirname $$f)/; \
		done; \
	done

# Every figure of BENCHMARKS.md, measured in one run on this machine and printed as one
# table: the daemon end to end over loopback and its floor (200 and 2,000 games, pictures
# on), the store, adjudication and audit benchmarks (go test -bench, run and parsed), the
# daemon's peak RSS and store bytes a mail with 1,000 and 10,000 games (two mails a game)
# and 3,000 games (ten a game), and the verdict row: the burst against the floor that
# sends the same mails. The bench is a test binary
# (cmd/adjutant/benchtable_test.go), not part of the daemon. Its sizes are flags:
# make bench BENCH_FLAGS='--games 20 --memory-games 100' (BENCH_FLAGS=-h lists them).
BENCH_FLAGS ?=
bench:
	$(GO) test -count=1 -run '^$$' -bench '^BenchmarkTable$$' -benchtime 1x -timeout 90m ./cmd/adjutant/ -args -- $(BENCH_FLAGS)

clean:
	rm -rf bin

# End to end against real servers: installs (if missing) and starts Dovecot and Postfix on
# 127.0.0.1 (cmd/adjutant/e2e/setup.sh, as root), then plays the sample game with the
# daemon as `adjutant serve --config FILE` and the players on real accounts. The servers
# are stopped afterwards (E2E_KEEP=1 leaves them running to look at). It also installs
# Debian's chromium if missing (cmd/adjutant/e2e/chromium.sh) and opens a finished game's
# record.html in it, headless (TestRecordInChromium).
E2E_ENV = ADJUTANT_E2E_IMAP=127.0.0.1:143 ADJUTANT_E2E_SMTP=127.0.0.1:25 ADJUTANT_E2E_DOMAIN=e2e.test \
	ADJUTANT_E2E_GAME_PASSWORD=e2e-game-mailbox ADJUTANT_E2E_US_PASSWORD=e2e-us-mailbox \
	ADJUTANT_E2E_DE_PASSWORD=e2e-de-mailbox
.PHONY: e2e
e2e:
	$(E2E_ENV) bash cmd/adjutant/e2e/setup.sh
	bash cmd/adjutant/e2e/chromium.sh
	@status=0; \
	$(E2E_ENV) $(GO) test -count=1 -tags e2e -run '^(TestE2EDovecotPostfix|TestRecordInChromium)$$' -timeout 5m -v ./cmd/adjutant/ || status=$$?; \
	if [ -z "$(E2E_KEEP)" ]; then bash cmd/adjutant/e2e/teardown.sh; fi; \
	exit $$status

# The exactly-once harness (issue 9): `adjutant serve` as a child process killed with
# SIGKILL 100 times at pseudo-random instants over a backlog of 200 mails for 10 games;
# then every mail must have exactly one reply, every audit and replay verify, and at most
# 2 mails may have been delivered twice. `make test` runs a short version (10 kills, at
# most 4 delivered twice: a busy CI machine's slow fsyncs widen the window).
# CRASH_SEED picks another sequence of instants.
CRASH_SEED ?= 1
.PHONY: crash
crash:
	ADJUTANT_CRASH_KILLS=100 ADJUTANT_CRASH_GAMES=10 ADJUTANT_CRASH_MAILS=20 ADJUTANT_CRASH_MAX_DUP=2 ADJUTANT_CRASH_SEED=$(CRASH_SEED) \
		$(GO) test -count=1 -run '^TestCrashHarness$$' -v -timeout 30m ./cmd/adjutant/ 2>&1 | \
		grep -E 'crash harness|^(--- |ok|FAIL)|want|lost'; exit $${PIPESTATUS[0]}
