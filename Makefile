# Adjutant. `make demo` plays a sample game; `make test` runs every test.
GO ?= go

.PHONY: all build demo test check vet fmt fuzz bench clean

all: build

build:
	$(GO) build -o bin/adjutant ./cmd/adjutant

# The main job on an embedded default: a complete sample game of Soldiers 1918 through
# pipe mode (adjutant handle), printing every mail, the audit verification and the replay.
demo:
	$(GO) run ./cmd/adjutant demo

# Every test. CI (.ci/run) runs exactly this.
test: vet
	$(GO) test -count=1 ./...

vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

check: test
	$(GO) test -count=1 -race ./...

# Each fuzz target for a while (FUZZTIME=30s by default).
FUZZTIME ?= 30s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzSplit$$' -fuzztime $(FUZZTIME) ./adjudicator/orders/
	$(GO) test -run '^$$' -fuzz '^FuzzParsePlotItems$$' -fuzztime $(FUZZTIME) ./adjudicator/orders/
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime $(FUZZTIME) ./adjudicator/soldiers1918/
	$(GO) test -run '^$$' -fuzz '^FuzzReadEnvelope$$' -fuzztime $(FUZZTIME) ./mail/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./adjudicator/hex/

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin
