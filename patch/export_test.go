package patch

// WithBeforeCommit returns opt with f run once every output is staged,
// before the renames.
func WithBeforeCommit(opt Options, f func()) Options {
	opt.beforeCommit = f
	return opt
}
