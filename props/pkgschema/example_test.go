package pkgschema_test

import (
	"encoding/binary"
	"fmt"

	"github.com/unrmod/unrmod/props/pkgschema"
)

// A class's UStruct part as a UE 5.8 cook writes it: no super, no
// children, one IntProperty named Health (no FField flags), then the script
// sizes.
func ExampleDecodeStruct() {
	names := []string{"IntProperty", "Health", "None"}
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 0)   // super struct
	b = le.AppendUint32(b, 0)   // children
	b = le.AppendUint32(b, 1)   // one property
	b = le.AppendUint64(b, 0)   // type IntProperty
	b = le.AppendUint64(b, 1)   // name Health
	b = le.AppendUint32(b, 1)   // array dim
	b = le.AppendUint32(b, 4)   // element size
	b = le.AppendUint64(b, 0x5) // property flags
	b = le.AppendUint16(b, 0)   // rep index
	b = le.AppendUint64(b, 2)   // rep notify: None
	b = append(b, 0)            // replication condition
	b = le.AppendUint64(b, 0)   // script sizes
	s, err := pkgschema.DecodeStruct(b, 0, &pkgschema.Options{Names: names, Flags: pkgschema.FlagsNotStored})
	if err != nil {
		panic(err)
	}
	u, err := s.Usmap("BP_Hero_C", func(int32) string { return "" })
	if err != nil {
		panic(err)
	}
	for _, p := range u.Properties {
		fmt.Println(p.Index, p.Name, p.Type)
	}
	// Output: 0 Health IntProperty
}
