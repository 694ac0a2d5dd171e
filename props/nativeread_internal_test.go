package props

import "testing"

// TestNativeReadersBeforeCustomVersions reads the layouts that packages of
// UE 5.0–5.2 hold, whose tags cannot say a struct is native (so only
// unversioned data reaches these readers): an InstancedStruct and a
// property bag led by a version byte.
func TestNativeReadersBeforeCustomVersions(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		ue5  int32
		data []byte
		want string // Display, or "" for a refusal
	}{
		{"InstancedStruct", 1009, []byte{1, 0, 0, 0, 0, 0, 0, 0, 0}, "(Version=1,ScriptStruct=None,Data=0x)"},
		{"InstancedStruct", 1009, []byte{0xAB, 0xAB, 0xAB, 0xAB, 1, 0, 0, 0, 0, 0, 0, 0, 0},
			"(EditorHeader=2880154539,Version=1,ScriptStruct=None,Data=0x)"},
		{"InstancedStruct", 1010, []byte{0, 0, 0, 0, 0, 0, 0, 0}, "(ScriptStruct=None,Data=0x)"},
		{"InstancedPropertyBag", 1004, []byte{1, 0, 0, 0, 0}, "(Version=1,bHasData=0)"},
		{"InstancedPropertyBag", 1004, []byte{0, 1, 0, 0, 0}, ""},
		{"InstancedPropertyBag", 1008, []byte{0, 0, 0, 0}, "(bHasData=0)"},
	} {
		d := &decoder{ctx: &Context{FileVersionUE5: tc.ue5}, data: tc.data}
		c := d.cursor(0, len(tc.data))
		s, err := d.readNative(c, tc.typ, nativeReaders[tc.typ])
		switch {
		case tc.want == "":
			if err == nil {
				t.Errorf("%s at %d: %s, want a refusal", tc.typ, tc.ue5, Display(s, nil))
			}
		case err != nil:
			t.Errorf("%s at %d: %v", tc.typ, tc.ue5, err)
		case Display(s, nil) != tc.want || c.Len() != 0:
			t.Errorf("%s at %d reads %s (%d bytes left), want %s", tc.typ, tc.ue5, Display(s, nil), c.Len(), tc.want)
		}
	}
}
