package patch

// WithBeforeCommit returns opt with f run once every output is staged,
// before the renames.
func WithBeforeCommit(opt Options, f func()) Options {
	opt.beforeCommit = f
	return opt
}

// CopyContainer copies a container's .utoc and .ucas files into dir (made
// when missing) and returns the copy's .utoc (tcCopyContainer).
var CopyContainer = tcCopyContainer
