// Package zen decodes and encodes what the chunks of an IoStore container
// hold: zen packages and the container header (the package store), with the
// name batches and CityHash64 name hashes they carry. It is the codec layer
// under package iostore, which owns the .utoc/.ucas files: zen imports only
// cityhash and unrmod's internal helpers, never iostore, so it can be used
// on chunks saved as files as well as on chunks read from a container.
//
// DecodeContainerHeader decodes a container-header chunk of every layout:
// the UE 4.25–4.27 one without a version field and the UE5 versions 0–5
// (HeaderVersion). An unchanged header encodes back byte for byte
// ((*ContainerHeader).Encode); parts whose bytes are not in the layout the
// encoder produces are kept as read while the model is unchanged.
//
// Errors are *ue.FormatError values naming the file, the structure and the
// byte offset, wrapping ErrCorrupt, ErrUnsupportedVersion or
// ErrNotEncodable for callers that branch with errors.Is. The format notes
// behind every structure are in docs/zen.md and docs/containers.md.
package zen
