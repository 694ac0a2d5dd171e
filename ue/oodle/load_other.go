//go:build !linux && !darwin && !windows

package oodle

import (
	"fmt"
	"runtime"
)

func load(string) (funcs, error) {
	return nil, fmt.Errorf("loading a library is not supported on %s", runtime.GOOS)
}
