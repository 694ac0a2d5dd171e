package reader

// NativeLean is the layout Verify works from: Native without the tags of
// the property list (unless the class's decoder needs them).
func NativeLean(p *Package, i int) (*NativeLayout, error) { return p.native(i, false) }
