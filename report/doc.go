// Package report builds the reports unrmod prints — what info, dump and ls
// show about a package, a container or a pak — as plain data models, so
// that a GUI or another program gets the same data as the command line
// without parsing its output.
//
// Each model's JSON form is the document `unrmod … --json` prints (the
// field names are the same); the text tables are the command line's own.
// Hashes and ids are strings of fixed-width hex (0x21febf02cdde2af3), flag
// words a Flags with the value in hex and the names of the set bits.
package report
