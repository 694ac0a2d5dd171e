package iostore

import "testing"

// The zlib decoder's test data, encoders and reference decoder, for the
// container tests of package iostore_test (zlib_test.go).
var (
	InflateTestData      = inflateData
	InflateTestReference = inflateReference
	InflateTestDamage    = inflateDamage
	InflateTestEncoders  = len(inflateEncoders)
)

// InflateTestEncode encodes data with the i-th test encoder.
func InflateTestEncode(t testing.TB, i int, data []byte) []byte {
	return inflateEncode(t, inflateEncoders[i], data)
}
