#!/bin/sh
# scale.sh runs BenchmarkScale (cmd/unrmod) on generated containers of
# 1k, 10k, 50k and 100k small packages and prints, per command, the time
# of each size, the 50k/10k ratio (5.0 when the command is linear in the
# number of packages) and the peak heap in use.
#
#   scripts/scale.sh                      # sizes 1000,10000,50000,100000
#   SIZES=1000,10000,50000 COUNT=1 scripts/scale.sh
#
# COUNT (default 3) runs each size that many times and keeps the fastest
# run, since a busy machine makes single runs vary by 2x or more. The
# containers are generated once, in a temporary folder ($UNRMOD_BENCH_DIR
# when set), and removed at the end; the commands write their outputs there
# too. On ext4, extract's time after a run that removed tens of thousands
# of files is mostly the kernel's inode allocator: to measure unrmod alone,
# point UNRMOD_BENCH_DIR at a memory file system:
#
#   UNRMOD_BENCH_DIR=/dev/shm/unrmod scripts/scale.sh
set -eu
cd "$(dirname "$0")/.."
SIZES=${SIZES:-1000,10000,50000,100000}
COUNT=${COUNT:-3}
GO=${GO:-go}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
UNRMOD_SCALE_SIZES=$SIZES $GO test -run '^$' -bench '^BenchmarkScale$' -benchtime 1x -count "$COUNT" \
	-timeout 60m ./cmd/unrmod | tee "$out" | grep -E '^(Benchmark|FAIL|---)' >&2 || true
grep -q '^ok' "$out" || { echo "scale.sh: the benchmark failed" >&2; cat "$out" >&2; exit 1; }
awk -v sizes="$SIZES" '
/^BenchmarkScale\// {
	split($1, p, "/"); cmd = p[2]; n = p[3]; sub(/^pkgs=/, "", n); sub(/-[0-9]+$/, "", n)
	ns = $3
	for (i = 4; i < NF; i++) if ($(i+1) == "peak-heap-MB") mb = $i
	if (!((cmd, n) in t) || ns < t[cmd, n]) t[cmd, n] = ns
	if (!((cmd, n) in m) || mb > m[cmd, n]) m[cmd, n] = mb
	if (!(cmd in seen)) { seen[cmd] = 1; cmds[++nc] = cmd }
}
END {
	ns = split(sizes, s, ",")
	printf "%-8s", "command"
	for (i = 1; i <= ns; i++) printf " %10s", s[i] " pkgs"
	printf " %9s", "50k/10k"
	for (i = 1; i <= ns; i++) printf " %10s", "MB@" s[i]
	printf "\n"
	for (c = 1; c <= nc; c++) {
		cmd = cmds[c]
		printf "%-8s", cmd
		for (i = 1; i <= ns; i++) printf " %9.3fs", t[cmd, s[i]] / 1e9
		r = ((cmd, 10000) in t && (cmd, 50000) in t) ? sprintf("%.2fx", t[cmd, 50000] / t[cmd, 10000]) : "-"
		printf " %9s", r
		for (i = 1; i <= ns; i++) printf " %10.1f", m[cmd, s[i]]
		printf "\n"
	}
	printf "\n50k/10k: time of 50k packages over 10k (linear: 5.00x); MB: peak heap in use.\n"
}' "$out"
