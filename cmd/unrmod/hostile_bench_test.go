package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/unrmod/unrmod/internal/fixture"
	"github.com/unrmod/unrmod/reader"
)

// BenchmarkHostile reads, verifies and dumps the hostile legacy packages
// (40,000 tags named by one long name; 200 levels of outers, the deepest
// the engine's paths allow; 250 levels of 1000-character names, which are
// refused) next to an ordinary package of the same size. Each
// sub-benchmark runs the operation on the ordinary package and on the
// hostile one in turn, so that both see the same machine, and reports the
// time of each (normal-ns/op, hostile-ns/op; ns/op is the pair) and
// x-normal, the hostile time over the ordinary one: work linear in the
// input keeps it near 1 (at most 2).
func BenchmarkHostile(b *testing.B) {
	dir := b.TempDir()
	type file struct{ name, path string }
	write := func(name string, data []byte, err error) file {
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(dir, name+".u")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		return file{name, path}
	}
	var pairs [][2]file // hostile, ordinary of the same size
	for _, h := range []struct {
		name  string
		build func() ([]byte, error)
	}{
		{"LongNameTags", func() ([]byte, error) { return fixture.LongNameTags(40000, 1024) }},
		{"DeepOuters200", func() ([]byte, error) { return fixture.DeepOuters(200, 4) }},
		{"DeepOuters250x1000", func() ([]byte, error) { return fixture.DeepOuters(250, 1000) }},
	} {
		data, err := h.build()
		hf := write(h.name, data, err)
		normal, err := fixture.SizedLike(len(data))
		pairs = append(pairs, [2]file{hf, write(h.name+"-normal", normal, err)})
	}
	ops := []struct {
		name string
		do   func(b *testing.B, path string)
	}{
		{"read", func(b *testing.B, path string) {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = reader.Read(path, data) // the refused file fails here, as it should
		}},
		{"verify", func(b *testing.B, path string) { run([]string{"verify", path}, io.Discard, io.Discard) }},
		{"dump", func(b *testing.B, path string) { run([]string{"dump", path}, io.Discard, io.Discard) }},
	}
	for _, op := range ops {
		for _, pair := range pairs {
			hostile, normal := pair[0], pair[1]
			st, err := os.Stat(hostile.path)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(op.name+"/"+hostile.name, func(b *testing.B) {
				b.SetBytes(2 * st.Size())
				b.ReportAllocs()
				var tn, th time.Duration
				n := 0
				for b.Loop() {
					t0 := time.Now()
					op.do(b, normal.path)
					t1 := time.Now()
					op.do(b, hostile.path)
					tn, th = tn+t1.Sub(t0), th+time.Since(t1)
					n++
				}
				b.ReportMetric(float64(tn.Nanoseconds())/float64(n), "normal-ns/op")
				b.ReportMetric(float64(th.Nanoseconds())/float64(n), "hostile-ns/op")
				b.ReportMetric(float64(th)/float64(tn), "x-normal")
			})
		}
	}
}

// BenchmarkManyOps times the dry runs of TestManyAddNames and
// TestManyObjectLookups: 40,000 add-name operations on a legacy and a zen
// package, and 5,000 set-property operations each on its own export of a
// package of 5,000 exports. Each operation's lookup must not scan the name
// table or build every export's path: ns/op stays in the order of a
// second, not minutes.
func BenchmarkManyOps(b *testing.B) {
	for _, c := range []struct {
		name  string
		patch func(dir string) string
	}{
		{"add-name/legacy", func(dir string) string { return manyAddNamesPatch(b, dir, "UnrmodDemo.u", 40000) }},
		{"add-name/zen", func(dir string) string { return manyAddNamesPatch(b, dir, "zen/BP_DemoPickup.uasset", 40000) }},
		{"set-property/5000-objects", func(dir string) string { return manyObjectsPatch(b, dir, 5000) }},
	} {
		patch := c.patch(b.TempDir())
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if code := run([]string{"apply", "--dry-run", patch}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("apply --dry-run %s: exit %d", patch, code)
				}
			}
		})
	}
}
