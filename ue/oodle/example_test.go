package oodle_test

import (
	"fmt"
	"log"

	"github.com/unrmod/unrmod/iostore"
	"github.com/unrmod/unrmod/ue/oodle"
)

// Extract an Oodle-compressed container through the game's own library,
// found beside the game the container belongs to.
func Example() {
	const utoc = "Game/Content/Paks/pakchunk0-Windows.utoc"
	path, err := oodle.Find(utoc)
	if err != nil {
		log.Fatal(err) // or ask the user where the game's oo2core_9_win64.dll is
	}
	lib, err := oodle.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	c, err := iostore.Open(utoc, &iostore.Options{Codecs: lib.Register(nil)})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	res, err := c.Extract("out", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Files, "files")
}
