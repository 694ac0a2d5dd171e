package usmap_test

import (
	"os"
	"testing"

	"github.com/unrmod/unrmod/usmap"
)

// FuzzUsmap checks that no input makes Read panic, hang or allocate
// beyond its limit, and that what it reads gives schemas without panics.
func FuzzUsmap(f *testing.F) {
	if os.Getenv("UNRMOD_CORPUS") != "" {
		for _, file := range corpusMappings(f) {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add(build(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := usmap.Read(data, &usmap.Options{MaxPayload: 4 << 20})
		if err != nil {
			return
		}
		for i, s := range m.Structs {
			if i == 64 {
				break
			}
			_, _ = m.Schema(s.Name)
		}
	})
}
