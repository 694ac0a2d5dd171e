module github.com/unrmod/unrmod

go 1.25

require (
	github.com/go-faster/city v1.0.1
	github.com/klauspost/compress v1.20.3
	github.com/pierrec/lz4/v4 v4.1.33
	github.com/zeebo/blake3 v0.2.4
	github.com/zeebo/xxh3 v1.1.0
	golang.org/x/sys v0.30.0
	gopkg.in/yaml.v3 v3.0.1
)

require github.com/klauspost/cpuid/v2 v2.2.10 // indirect
