module github.com/unrmod/unrmod

go 1.25
