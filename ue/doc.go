// Package ue holds what every Unreal Engine file format in unrmod shares and
// that belongs to none of them: the error type that names a file, a
// structure and a byte offset, the sentinel errors callers branch on, the
// AES-256 key the engine encrypts containers and paks with, the registry
// of compression methods, and the table of engine releases.
//
// It sits below the formats (iostore, iostore/zen, pak, the property
// codec, cooked assets) and imports none of them, so each format uses it
// without depending on another format. "ue" stands for Unreal Engine.
package ue
