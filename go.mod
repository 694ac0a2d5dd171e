module github.com/unrmod/unrmod

go 1.25

require (
	github.com/zeebo/xxh3 v1.1.0
	gopkg.in/yaml.v3 v3.0.1
)

require (
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	golang.org/x/sys v0.30.0 // indirect
)
