#!/bin/bash
# uecastoc.sh times 'unrmod pack --compression zlib' against UEcastoc's
# packer (github.com/gitMenv/UEcastoc, which compresses with Go's
# compress/zlib at its default level, 6) on the same folder, on one core
# (taskset -c 0) and on every core, runs alternating, and prints wall and
# CPU (user+system) times, their ratios and the sizes of the two .ucas.
#
#   scripts/uecastoc.sh CASTOC [DIR]
#   scripts/uecastoc.sh --build UECASTOC_SRC CASTOC
#
# CASTOC is a UEcastoc binary taking the arguments of its castoc.exe
# ('castoc pack DIR MANIFEST OUT zlib'). UEcastoc ships its Go code as a
# Windows DLL with an empty main; --build makes such a binary from a
# checkout of its source at UECASTOC_SRC, in a temporary copy: it replaces
# the DLL's exported functions (dllAPI.go) by a small command-line front
# end, and its Oodle binding, which loads a Windows DLL, by a stub that
# refuses (only zlib is timed). It needs cgo and a C compiler, as
# UEcastoc's helpers do. Nothing of UEcastoc goes into this repository.
#
# DIR is the folder both pack. Without it, the realistic container of the
# benchmarks (207 MiB of real cooked bytes in the shape of a shipped UE5
# game's container; needs UNRMOD_CORPUS) is written and extracted with
# 'unrmod extract', its bulk files whose package the sample left out are
# kept as chunks by id and names unrmod's package names cannot hold are
# made plain, so that 'unrmod pack' takes it. UEcastoc gets a manifest
# listing every file of DIR (it reads and compresses files as they are).
#
# Output goes to a temporary folder ($UNRMOD_BENCH_DIR when set); COUNT
# (default 3) runs of each. unrmod packs for UE 5.6 (ENGINE), verifies its
# output and syncs it to storage; UEcastoc does neither.
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}

if [ "${1:-}" = --build ]; then
	src=${2:?usage: uecastoc.sh --build UECASTOC_SRC CASTOC}
	bin=${3:?usage: uecastoc.sh --build UECASTOC_SRC CASTOC}
	case $bin in /*) ;; *) bin=$PWD/$bin ;; esac
	[ -f "$src/pack.go" ] || { echo "uecastoc.sh: $src is not a UEcastoc checkout (no pack.go)" >&2; exit 2; }
	b=$(mktemp -d)
	trap 'rm -rf "$b"' EXIT
	cp -r "$src"/. "$b"
	rm -f "$b/dllAPI.go"
	mkdir -p "$b/oodlestub"
	cat >"$b/oodlestub/go.mod" <<'EOF'
module github.com/new-world-tools/go-oodle

go 1.18
EOF
	cat >"$b/oodlestub/oodle.go" <<'EOF'
// Package oodle stands in for the Windows-only Oodle binding: it refuses.
package oodle

import "errors"

const (
	AlgoKraken               = 8
	CompressionLevelOptimal3 = 7
)

var errNo = errors.New("oodle: not available in this build")

func IsDllExist() bool                                 { return false }
func Download() error                                  { return errNo }
func Decompress(b []byte, n int64) ([]byte, error)     { return nil, errNo }
func Compress(b []byte, algo, level int) ([]byte, error) { return nil, errNo }
EOF
	cat >"$b/cli.go" <<'EOF'
package main

// A command-line front end with the arguments of UEcastoc's castoc.exe.

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed req/Packed_P.pak
var embeddedFiles embed.FS

func die(err error) { fmt.Fprintln(os.Stderr, "castoc:", err); os.Exit(1) }

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: castoc manifest UTOC UCAS OUT.json | unpackAll UTOC UCAS OUTDIR | pack DIR MANIFEST OUT METHOD")
		os.Exit(2)
	}
	a := os.Args[2:]
	switch os.Args[1] {
	case "manifest":
		d, err := parseUtocFile(a[0], nil)
		if err != nil {
			die(err)
		}
		m, err := d.constructManifest(a[1])
		if err != nil {
			die(err)
		}
		b, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(a[2], b, 0o644); err != nil {
			die(err)
		}
	case "unpackAll":
		d, err := parseUtocFile(a[0], nil)
		if err != nil {
			die(err)
		}
		n, err := d.unpackUcasFiles(a[1], a[2], "/*")
		if err != nil {
			die(err)
		}
		fmt.Println("number of unpacked files:", n)
	case "pack":
		dir, err := filepath.Abs(a[0])
		if err != nil {
			die(err)
		}
		out := strings.TrimSuffix(a[2], filepath.Ext(a[2]))
		m, err := readManifest(a[1])
		if err != nil {
			die(err)
		}
		n, err := packToCasToc(dir, m, out, a[3], nil)
		if err != nil {
			die(err)
		}
		embedded, _ := embeddedFiles.ReadFile("req/Packed_P.pak")
		os.WriteFile(out+".pak", embedded, 0o644)
		fmt.Println("number of packed files:", n-1)
	default:
		die(fmt.Errorf("unknown feature %q", os.Args[1]))
	}
}
EOF
	(cd "$b" && $GO mod edit -replace github.com/new-world-tools/go-oodle=./oodlestub &&
		CGO_ENABLED=1 GOFLAGS=-mod=mod $GO build -o "$bin" .)
	echo "built $bin"
	exit 0
fi

castoc=${1:-${UECASTOC:-}}
if [ -z "$castoc" ] || [ ! -x "$castoc" ]; then
	echo "uecastoc.sh: no UEcastoc binary${castoc:+ at $castoc}; skipped." >&2
	echo "  build one with: scripts/uecastoc.sh --build PATH/TO/UEcastoc-source /tmp/castoc" >&2
	exit 0
fi
case $castoc in /*) ;; *) castoc=$PWD/$castoc ;; esac
COUNT=${COUNT:-3}
ENGINE=${ENGINE:-5.6}
work=$(mktemp -d "${UNRMOD_BENCH_DIR:-${TMPDIR:-/tmp}}/uecastoc.XXXXXX")
trap 'rm -rf "$work"' EXIT
$GO build -o "$work/unrmod" ./cmd/unrmod

in=${2:-}
if [ -z "$in" ]; then
	: "${UNRMOD_CORPUS:?set UNRMOD_CORPUS (the realistic container is made from it) or give DIR}"
	mkdir "$work/src"
	UNRMOD_REALISTIC_OUT=$work/src $GO test -count=1 -run '^TestWriteRealistic$' ./iostore >/dev/null
	in=$work/in
	"$work/unrmod" extract "$work/src/Realistic-Windows.utoc" -o "$in" >/dev/null
	rm -rf "$work/src"
	# Bulk files whose package the sample left out go back as chunks.
	mkdir -p "$in/chunks/BulkData"
	k=0
	find "$in" -path "$in/chunks" -prune -o -type f \( -name '*.ubulk' -o -name '*.uptnl' \) -print | sort |
		while read -r f; do
			base=${f%.ubulk}
			base=${base%.uptnl}
			base=${base%.m}
			if [ ! -e "$base.uasset" ] && [ ! -e "$base.umap" ]; then
				k=$((k + 1))
				mv "$f" "$(printf '%s/chunks/BulkData/5a5a%012x00000002.bin' "$in" "$k")"
			fi
		done
	# Package names hold letters, digits, '_' and '-' only.
	find "$in" -path "$in/chunks" -prune -o -type f -print | grep '/[^/]*[^A-Za-z0-9_./-][^/]*$' |
		while read -r f; do
			d=$(dirname "$f")
			n=$(basename "$f")
			stem=${n%%.*}
			mv "$f" "$d/$(printf '%s' "$stem" | tr -c 'A-Za-z0-9_-' '_').${n#*.}"
		done
fi
[ -d "$in" ] || { echo "uecastoc.sh: $in is not a folder" >&2; exit 2; }
case $in in /*) ;; *) in=$PWD/$in ;; esac

# UEcastoc's manifest: every file of DIR, each with a chunk id of its own.
manifest=$work/manifest.json
(cd "$in" && find . -type f | sort) | awk '
BEGIN { printf "{\"Files\":[" }
{ sub(/^\./, ""); gsub(/"/, "\\\""); printf "%s{\"Path\":\"%s\",\"ChunkId\":\"%016x0000%02x%02x\"}", (NR > 1 ? "," : ""), $0, 4096 + NR, 0, 2 }
END { printf "],\"Dependencies\":{\"packageID\":0,\"ChunkIDToDependencies\":{}}}\n" }' >"$manifest"

out=$work/out
mkdir "$out"
# run TOOL CORES: one timed run; leaves "wall cpu" (seconds) in
# $work/t.TOOL and the .ucas size in $work/s.TOOL.
run() {
	rm -rf "${out:?}"/*
	local cpus=0-$(($(nproc) - 1))
	[ "$2" = 1 ] && cpus=0
	local cmd
	if [ "$1" = unrmod ]; then
		cmd=("$work/unrmod" pack "$in" -o "$out/Mod_P.utoc" --engine "$ENGINE" --compression zlib)
	else
		cmd=("$castoc" pack "$in" "$manifest" "$out/Mod_P" zlib)
	fi
	TIMEFORMAT='%R %U %S'
	if ! { time taskset -c "$cpus" "${cmd[@]}" >/dev/null 2>"$work/err"; } 2>"$work/time"; then
		echo "uecastoc.sh: $1 failed:" >&2
		cat "$work/err" >&2
		exit 1
	fi
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$work/time" >"$work/t.$1"
	stat -c %s "$out/Mod_P.ucas" >"$work/s.$1"
}
echo "input: $in ($(du -sb "$in" | cut -f1) bytes, $(find "$in" -type f | wc -l) files); load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-3s %-7s %-8s %-8s %-9s %-9s\n' cores run tool wall-s cpu-s x-wall x-cpu
for cores in 1 $(nproc); do
	for i in $(seq "$COUNT"); do
		run unrmod "$cores"
		run castoc "$cores"
		read -r uw uc <"$work/t.unrmod"
		read -r cw cc <"$work/t.castoc"
		printf '%-6s %-3s %-7s %-8s %-8s\n' "$cores" "$i" UEcastoc "$cw" "$cc"
		printf '%-6s %-3s %-7s %-8s %-8s %-9s %-9s\n' "$cores" "$i" unrmod "$uw" "$uc" \
			"$(awk -v a="$uw" -v b="$cw" 'BEGIN { printf "%.3f", a / b }')" \
			"$(awk -v a="$uc" -v b="$cc" 'BEGIN { printf "%.3f", a / b }')"
	done
done
echo "x-wall, x-cpu: unrmod's time over UEcastoc's in the same round (below 1: unrmod is faster)"
us=$(cat "$work/s.unrmod")
cs=$(cat "$work/s.castoc")
echo ".ucas: unrmod $us bytes, UEcastoc $cs bytes ($(awk -v a="$us" -v b="$cs" 'BEGIN { printf "%.4f", a / b }')x); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
