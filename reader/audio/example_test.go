package audio_test

import (
	"fmt"
	"log"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/reader/audio"
)

// Find the WAVE file inside the demo package's sound, check that the engine
// plays it, and name the file to save it under.
func ExampleExtract() {
	p, err := reader.ReadFile("../../examples/packages/UnrmodDemo.u")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range p.Lookup("Sounds.Beep") {
		i, _ := r.Export()
		a, err := audio.Extract(p, i)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(a.Path, a.FileType, a.FileName(), len(a.Data), "bytes")
		fmt.Println(a.WAV, a.Problem)
	}
	// Output:
	// UnrmodDemo.Sounds.Beep WAV Beep.wav 108 bytes
	// PCM 8-bit mono 8000 Hz, 0.008 s <nil>
}

// Check a WAVE file before it replaces a sound.
func ExampleCheckWAV() {
	data := []byte("RIFF\x28\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x40\x1f\x00\x00\x01\x00\x08\x00data\x04\x00\x00\x00\x80\xff\x80\x00")
	w, err := audio.CheckWAV(data)
	fmt.Println(w, err)

	data[20] = 3 // IEEE float
	_, err = audio.CheckWAV(data)
	fmt.Println(err)
	// Output:
	// PCM 8-bit mono 8000 Hz, 0.0005 s <nil>
	// WAV: IEEE float samples: the engine plays PCM (8 or 16 bits) and ADPCM only; convert it to 16-bit PCM (for example: ffmpeg -i in.wav -c:a pcm_s16le -ar 22050 out.wav)
}
