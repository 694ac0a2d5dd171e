#!/bin/sh
# perf.sh runs the throughput and memory benchmarks of issue 21 and prints
# their ratios against the baselines each measures in the same run:
#
#   BenchmarkPackZlib   the Writer (what pack --compression zlib runs) over
#                       its compressor (the built-in Zlib codec at the
#                       default level) alone on the same 64 KiB blocks,
#                       1 and 2 cores: x-compressor (wall time) and
#                       x-compressor-cpu (CPU time: per core); the output's
#                       size over the standard library's zlib at level 6
#   BenchmarkPackNone   the Writer storing blocks uncompressed over a
#                       synced copy of the same bytes: x-copy
#   BenchmarkRewrite    apply's full rewrite (Compact) and its preserving
#                       one, with the plain and synced copies of the files
#   BenchmarkZenPackages, BenchmarkVerify  zen decode+verify and container
#                       verification, with a copy of the same bytes
#   BenchmarkHugePackage  the heap pack, verify, extract, convert (both
#                       ways) and apply (mode mod and full) need for one
#                       400 MiB package
#
#   scripts/perf.sh                  # every benchmark, 3 runs each
#   COUNT=5 BENCH=PackZlib scripts/perf.sh
#
# Needs UNRMOD_CORPUS. Output goes to a temporary folder ($UNRMOD_BENCH_DIR
# when set). The machine may be shared: compare the ratios, which are taken
# side by side in each run, rather than the MB/s of separate runs.
set -eu
cd "$(dirname "$0")/.."
COUNT=${COUNT:-3}
GO=${GO:-go}
BENCH=${BENCH:-'PackZlib|PackNone|Rewrite|ZenPackages|Verify$|HugePackage'}
: "${UNRMOD_CORPUS:?set UNRMOD_CORPUS to the corpus folder}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
$GO test -run '^$' -bench "^Benchmark($BENCH)" -benchtime 2x -count "$COUNT" -timeout 60m \
	./iostore ./iostore/pack | tee "$out" | grep -E '^(Benchmark|FAIL|---)' >&2 || true
grep -q '^ok' "$out" || { echo "perf.sh: a benchmark failed" >&2; cat "$out" >&2; exit 1; }
# Per benchmark: the range of MB/s and of each ratio over the runs.
awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	if (!(name in seen)) { seen[name] = 1; names[++n] = name }
	for (i = 3; i < NF; i++) {
		u = $(i+1)
		if (u == "MB/s" || u == "cpu-MB/s" || u ~ /^x-/ || u == "peak-heap-MB" || u == "stored-%") {
			k = name SUBSEP u
			if (!(k in lo) || $i < lo[k]) lo[k] = $i
			if (!(k in hi) || $i > hi[k]) hi[k] = $i
			if (!((name, u) in has)) { has[name, u] = 1; units[name] = units[name] " " u }
		}
	}
}
END {
	for (j = 1; j <= n; j++) {
		name = names[j]; line = sprintf("%-44s", name)
		m = split(units[name], us, " ")
		for (i = 1; i <= m; i++) {
			k = name SUBSEP us[i]
			f = (hi[k] >= 100) ? "  %s %.0f-%.0f" : "  %s %.3g-%.3g"
			line = line sprintf(f, us[i], lo[k], hi[k])
		}
		print line
	}
}' "$out"
