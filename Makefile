# unrmod build, test and CI entry points. Run `make help` for the list.

GO       ?= go
FUZZTIME ?= 10s
BENCHTIME ?= 1s
# Fuzzing runs on a Go release whose fuzz coordinator no longer reports its
# own -fuzztime deadline as a failure (go.dev/issue/75804, fixed in 1.27):
# on 1.26 a target fails with "context deadline exceeded" and no input when
# the time runs out while a worker is minimizing. The go command fetches
# this toolchain itself; FUZZ_TOOLCHAIN=local keeps the installed one.
FUZZ_TOOLCHAIN ?= go1.27.4
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X main.version=$(VERSION)
PLATFORMS := linux/amd64 linux/arm64 windows/amd64 darwin/amd64 darwin/arm64

SEED     ?= 1
RUNS     ?= 100

.PHONY: help build test vet fmt-check tidy-check race bench perf scale fuzz faults cross ci clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build bin/unrmod for this machine
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/unrmod ./cmd/unrmod

fmt-check: ## fail when a file is not gofmt-formatted
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "not gofmt-formatted:"; echo "$$out"; exit 1; fi

tidy-check: ## fail when go.mod or go.sum is not what `go mod tidy` would write
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run 'go mod tidy' and commit the result"; exit 1; }

vet: ## go vet
	$(GO) vet ./...

test: fmt-check tidy-check vet ## gofmt check, vet and every test (real-file tests need UNRMOD_CORPUS); says how many were skipped
	$(GO) test -count=1 -json ./... | $(GO) run ./internal/testreport

race: ## every test under the race detector (needs cgo: a C compiler such as gcc)
	CGO_ENABLED=1 $(GO) test -race -count=1 ./...

bench: ## benchmarks with MB/s (need UNRMOD_CORPUS)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

perf: ## pack, apply, verify and zen speed against their baselines, and the heap of a 400 MiB package (COUNT, BENCH)
	GO=$(GO) scripts/perf.sh

scale: ## time verify, ls, extract, pack and apply on 1k-100k packages; 50k/10k ratios (SIZES, COUNT)
	GO=$(GO) scripts/scale.sh

fuzz: ## run every fuzz target for FUZZTIME each
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== fuzz $$pkg $$t ($(FUZZTIME))"; \
	    GOTOOLCHAIN=$(FUZZ_TOOLCHAIN) $(GO) test $$pkg -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s; \
	  done; \
	done

faults: ## kill, disk-full and damaged-input harness on the built binary (needs UNRMOD_CORPUS; SEED, RUNS)
	UNRMOD_FAULTS=1 $(GO) test -count=1 -timeout 30m -v -run '^TestFaults$$' ./internal/faults -args -seed $(SEED) -runs $(RUNS)

cross: ## build for every release platform with CGO_ENABLED=0
	@set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
	  echo "== $$os/$$arch"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/unrmod-$$os-$$arch$$ext ./cmd/unrmod; \
	done

ci: test race fuzz cross ## what .ci/run runs

clean: ## remove build output
	rm -rf bin dist
