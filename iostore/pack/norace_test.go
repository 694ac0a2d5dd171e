//go:build !race

package pack_test

// raceEnabled: see race_test.go.
const raceEnabled = false
