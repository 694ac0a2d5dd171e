package iostore

import (
	"fmt"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// unknownMethod is the error for a method the writer has no compressor for.
func unknownMethod(m string) error {
	if strings.EqualFold(m, "Oodle") {
		a := ue.OodleLibrary("WriterOptions.Codecs (package ue/oodle)", ue.ErrUnsupportedMethod)
		return fmt.Errorf("compression method %q: %w, or write with zlib, lz4 or none (stored Oodle blocks are still copied as they are)", m, a)
	}
	return fmt.Errorf("compression method %q: no compressor (unrmod has None, Zlib, Gzip and LZ4; add others to WriterOptions.Codecs)", m)
}
