package convert

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/iostore/zen"
	"github.com/unrmod/unrmod/ue"
)

// EncodeChecked encodes a converted package and checks the bytes as a
// reader will take them: they must decode again in the package's layout,
// show no problem (zen.Package.Problems: name hashes, serial offsets,
// bundles, references, public export hashes) and encode back to the same
// bytes. name is used in errors. A package that fails is refused with a
// *ue.FormatError wrapping ErrNotConvertible that lists the problems.
func EncodeChecked(name string, p *zen.Package) ([]byte, error) {
	b, err := p.Encode()
	if err != nil {
		return nil, err
	}
	d, err := zen.DecodePackage(name, b, &zen.DecodeOptions{Layout: p.Layout})
	if err != nil {
		return nil, errorf(name, "converted package", ErrNotConvertible, "the encoded package does not decode again: %v", err)
	}
	if probs := d.Problems(nil); len(probs) > 0 {
		return nil, errorf(name, "converted package", ErrNotConvertible, "the encoded package has %d problems: %s", len(probs), problemList(probs))
	}
	again, err := d.Encode()
	if err != nil || !bytes.Equal(again, b) {
		return nil, errorf(name, "converted package", ErrNotConvertible, "the encoded package does not encode back to the same bytes%s", errSuffix(err))
	}
	return b, nil
}

func errSuffix(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf(": %v", err)
}

// problemList joins problems with "; ".
func problemList(probs []ue.Problem) string {
	var list []string
	for _, pr := range probs {
		list = append(list, pr.String())
	}
	return strings.Join(list, "; ")
}
