// Package faults holds the kill and fault harness of unrmod: a long-running
// test that builds the unrmod binary and runs it as a person would, against
// copies of real Unreal files, while things go wrong.
//
//   - Kills: pack, rewrite (both layouts), apply (container patches in mode
//     mod and mode full, a legacy package patched in place) and extract are
//     sent SIGKILL after a seeded random delay spread over the command's
//     measured run time. Every input must be unchanged; every output must be
//     absent, the old output or the complete new one; a normal run after it
//     must complete the output and leave no temporary file.
//   - Disk full: the same writes go to a small tmpfs (or, where mounting is
//     not allowed, run under RLIMIT_FSIZE). They must fail with exit status 1
//     and a message that says so, leaving inputs, old outputs and the folder
//     as they were.
//   - Damaged inputs: seeded byte flips, truncations and zeroed ranges of
//     legacy packages, zen packages, containers and patch files are read and
//     written. No command may panic or hang; a write that succeeds must
//     write an output that verifies, and a damaged container block must not
//     come out of a write under a fresh, valid hash.
//
// The harness only runs when asked, so that it does not slow the ordinary
// tests:
//
//	UNRMOD_FAULTS=1 UNRMOD_CORPUS=/path/to/corpus go test ./internal/faults -run TestFaults -v -args -seed 1 -runs 100
//
// or `make faults`. See docs/testing.md.
package faults
