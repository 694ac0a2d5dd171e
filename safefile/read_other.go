//go:build !unix

package safefile

const openNonBlock = 0
