//go:build !linux

package iostore_test

import "errors"

// tcEvict is only available on Linux: cold benchmarks are skipped
// elsewhere.
func tcEvict(string) error { return errors.ErrUnsupported }
