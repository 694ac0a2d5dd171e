package convert

import "github.com/unrmod/unrmod/iostore/zen"

func (s *source) toUE4() (*zen.Package, error) {
	return nil, errorf(s.file, "package", ErrUnsupportedEngine, "not yet")
}
