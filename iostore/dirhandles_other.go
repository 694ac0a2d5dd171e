//go:build !unix

package iostore

// maxDirHandles bounds the directory handles Extract keeps open. Windows
// has no per-process descriptor limit of note (handles number in the
// millions).
func maxDirHandles() int { return maxDirHandlesCap }
