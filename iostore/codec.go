package iostore

import (
	"fmt"
	"strings"
)

// unknownMethod is the error for a method the writer has no compressor for.
func unknownMethod(m string) error {
	if strings.EqualFold(m, "Oodle") {
		return fmt.Errorf("compression method %q: unrmod cannot compress Oodle blocks (the Oodle library is proprietary); add a Codec with a NewCompressor from your own Oodle binding to WriterOptions.Codecs, or write with zlib, lz4 or none (stored Oodle blocks are still copied as they are)", m)
	}
	return fmt.Errorf("compression method %q: no compressor (unrmod has None, Zlib, Gzip and LZ4; add others to WriterOptions.Codecs)", m)
}
