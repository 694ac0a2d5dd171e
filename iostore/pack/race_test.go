//go:build race

package pack_test

// raceEnabled says the tests run under the race detector, whose sync.Pool
// drops a quarter of what is put back (to shake out races): buffers and
// compressors the writers pool are then made again, so allocation totals
// say nothing about what a build without it allocates.
const raceEnabled = true
