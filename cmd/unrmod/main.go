// Command unrmod inspects, checks, patches and rewrites Unreal Engine files:
// legacy UE1/UE2 packages (.u .utx .unr .uax .umx ...), cooked UE4/UE5 assets
// (.uasset/.uexp) and paks (.pak), and the zen packages of UE 4.26-6.0
// IoStore containers, which it reads, lists, extracts, verifies and packs
// (.utoc/.ucas); it converts between cooked assets and zen packages.
//
// Usage:
//
//	unrmod <command> [flags] args
//
// The commands are info, dump, props, verify, ls, extract, pack, rewrite,
// convert, export-data, export-table, import-table, export-texture,
// export-sound, apply, recover, diff, hash, help and version; "unrmod help"
// lists them and "unrmod <command> --help" explains one. Flags may appear
// before or after the arguments.
//
// Exit status: 0 on success, 1 when a file is bad, fails verification or
// cannot be written, 2 on a usage error, 130 when interrupted (Ctrl-C,
// SIGTERM), after removing the run's temporary files.
package main

import (
	"io"
	"os"
	"runtime/debug"
)

// version is the release version, set at build time with
//
//	go build -ldflags "-X main.version=v1.2.3" ./cmd/unrmod
var version = "dev"

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdout, os.Stderr))
}

// runMain runs the command line with a Session that an interrupt cleans
// up before the program exits with status 130.
func runMain(args []string, stdout, stderr io.Writer) int {
	sess := newSession(stderr)
	stop := onInterrupt(sess, stderr, os.Exit)
	defer stop()
	return runSession(sess, args, stdout, stderr)
}

// buildVersion returns the version to report: the -ldflags value, or the
// module version when the binary was built with "go install module@version".
func buildVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}
