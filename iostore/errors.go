package iostore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// Sentinel errors, wrapped by the errors this package returns, for callers
// that branch on the kind of failure with errors.Is.
var (
	// ErrNotContainer means the file does not start with the TOC magic
	// "-==--==--==--==-".
	ErrNotContainer = errors.New("not an IoStore table of contents (magic is not -==--==--==--==-)")
	// ErrUnsupportedVersion means the TOC version is outside 1..10, uses a
	// part of the layout whose encoding is unknown (TOC version 9 source
	// hashes), or a container header has an unknown version. It is
	// ue.ErrUnsupportedVersion.
	ErrUnsupportedVersion = ue.ErrUnsupportedVersion
	// ErrCorrupt means a structure is inconsistent: a count, size, offset or
	// reference that cannot be right. It is ue.ErrCorrupt, so corrupt zen
	// packages and container headers match it too.
	ErrCorrupt = ue.ErrCorrupt
	// ErrNotEncodable means an encoder (TOC.AppendBinary,
	// DirectoryIndex.AppendBinary, NewDirectoryIndex, BuildPerfectHash)
	// refused a model the format cannot hold or that contradicts itself. It
	// is ue.ErrNotEncodable.
	ErrNotEncodable = ue.ErrNotEncodable
	// ErrUnsupportedMethod means a compression block uses a method unrmod
	// cannot decode. The error is a *MethodError naming the method.
	ErrUnsupportedMethod = ue.ErrUnsupportedMethod
	// ErrOodle means a block is Oodle-compressed and the Codecs used have
	// no Oodle codec: Oodle is proprietary, decoded only through the
	// game's own library (package ue/oodle registers it). Everything that
	// needs no decompression (listing, structural checks, copying stored
	// blocks) still works. It is matched together with
	// ErrUnsupportedMethod.
	ErrOodle = errors.New("Oodle blocks need the game's Oodle library")
	// ErrKeyRequired means the container is encrypted and no AES key was
	// given.
	ErrKeyRequired = ue.NewSentinel("container is encrypted: an AES key is required", ue.ErrKeyRequired)
	// ErrWrongKey means data decrypted with the given key does not decode:
	// the key is not the container's.
	ErrWrongKey = ue.ErrWrongKey
	// ErrNoCAS means the .ucas file (or one of its partitions) is missing,
	// so chunk data cannot be read; the TOC alone still lists the chunks.
	ErrNoCAS = errors.New("container data (.ucas) not available")
	// ErrHashMismatch means a chunk's data does not match the hash in its
	// chunk meta.
	ErrHashMismatch = ue.NewSentinel("chunk hash mismatch", ue.ErrHashMismatch)
	// ErrMethodIndex means a compression block's method index is beyond
	// the TOC's method names: the block cannot be read, copied or written
	// again. The error is a *ue.FormatError naming the container, the block
	// and its entry's offset; it matches ErrCorrupt too.
	ErrMethodIndex = fmt.Errorf("block method index beyond the method names: %w", ErrCorrupt)
)

// MethodError is returned when a block needs a compression method unrmod
// cannot decode. It matches ErrUnsupportedMethod, and ErrOodle when the
// method is Oodle.
type MethodError struct {
	Method string // the method name as stored in the TOC, e.g. "Oodle"
	Block  int    // index of the compression block
}

// Error names the block and the method; for Oodle, how to give the
// library.
func (e *MethodError) Error() string {
	if isOodle(e.Method) {
		return fmt.Sprintf("compression block %d uses Oodle; %v", e.Block, oodleAdvice())
	}
	return fmt.Sprintf("compression block %d uses compression method %q, which unrmod cannot decompress (known: None, Zlib, Gzip, LZ4)", e.Block, e.Method)
}

// Is reports whether target is ErrUnsupportedMethod, or ErrOodle for an
// Oodle block.
func (e *MethodError) Is(target error) bool {
	return target == ErrUnsupportedMethod || (target == ErrOodle && isOodle(e.Method))
}

func isOodle(method string) bool { return strings.EqualFold(method, "Oodle") }

// Unwrap returns, for an Oodle block, the advice to give the library, so
// that a front end can name its own setting for it.
func (e *MethodError) Unwrap() error {
	if isOodle(e.Method) {
		return oodleAdvice()
	}
	return nil
}

// oodleAdvice advises the Oodle library through Options.Codecs.
func oodleAdvice() *ue.Advice { return ue.OodleLibrary("Options.Codecs (package ue/oodle)", nil) }

// errorf builds a *ue.FormatError.
func errorf(file, structure string, off int64, cause error, format string, args ...any) error {
	return ue.Errorf(file, structure, off, cause, format, args...)
}

// keyOption names the setting that gives a container's AES key.
const keyOption = "Options.Key"

// keyRequired returns the error for encrypted data read without a key: a
// *ue.FormatError whose cause, an *ue.Advice wrapping ErrKeyRequired,
// advises the key, so that a front end can name its own setting for it.
// what starts the message.
func keyRequired(file, structure string, off int64, what string, h *Header) error {
	a := &ue.Advice{Setting: ue.SettingKey, Name: keyOption, Err: ErrKeyRequired,
		Before: fmt.Sprintf("%s%v (key GUID %s%s); pass the key with ", what, ErrKeyRequired, h.EncryptionKeyGUID, defaultKeyNote(h.EncryptionKeyGUID))}
	return errorf(file, structure, off, a, "%s", a.Error())
}

// withoutFile returns err's text without the file name a *ue.FormatError
// starts with, for messages that name the file already.
func withoutFile(err error) string {
	var fe *ue.FormatError
	if errors.As(err, &fe) && fe.File != "" {
		return strings.TrimPrefix(err.Error(), fe.File+": ")
	}
	return err.Error()
}

// DamagedChunkError says that a chunk of a container does not hold what
// its chunk meta says: one of its compression blocks does not decode, or
// its data does not match the meta hash (SHA-1 on UE 4.26/4.27, BLAKE3-160
// on UE5). Everything that takes chunk data from a container to write it
// elsewhere returns it rather than writing damaged data under a fresh
// hash. It matches ErrInputDamaged, and ErrHashMismatch or what the
// block's decoding failed with (ErrCorrupt, ErrWrongKey).
type DamagedChunkError struct {
	File  string    // the container's .utoc
	Index int       // TOC entry index
	ID    ChunkID   // printed as 0x and 24 hex digits
	Type  ChunkType // the id's type
	Path  string    // where the directory index lists it; "" for none
	// Block is the compression block that does not decode, or -1 when the
	// blocks decode but the data does not match the hash: any of the
	// chunk's blocks FirstBlock … FirstBlock+NumBlocks-1 may be the
	// damaged one, since the hash covers them all.
	Block                 int
	FirstBlock, NumBlocks int
	// Want is the chunk meta's hash, Got that of the data (Block < 0).
	Want, Got [20]byte
	Err       error
	hint      string // " (wrong AES key?)" for an encrypted container
}

// Error names the container, the chunk (id and path) and the block.
func (e *DamagedChunkError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: chunk %v", e.File, e.ID)
	if e.Path != "" {
		fmt.Fprintf(&b, " (%s)", e.Path)
	} else {
		fmt.Fprintf(&b, " (%s)", e.Type)
	}
	switch {
	case e.Block >= 0:
		fmt.Fprintf(&b, ", compression block %d: does not decode", e.Block)
		var fe *ue.FormatError
		if errors.As(e.Err, &fe) {
			if fe.Offset >= 0 {
				fmt.Fprintf(&b, " (%s at 0x%X)", filepath.Base(fe.File), fe.Offset)
			}
			fmt.Fprintf(&b, ": %s", fe.Msg)
		} else {
			fmt.Fprintf(&b, ": %v", e.Err)
		}
	default:
		if e.NumBlocks == 1 {
			fmt.Fprintf(&b, ", compression block %d", e.FirstBlock)
		} else if e.NumBlocks > 1 {
			fmt.Fprintf(&b, ", compression blocks %d-%d", e.FirstBlock, e.FirstBlock+e.NumBlocks-1)
		}
		fmt.Fprintf(&b, ": the data does not match the chunk meta hash 0x%x (the data hashes to 0x%x): the container is damaged%s", e.Want[:], e.Got[:], e.hint)
	}
	return b.String()
}

// Unwrap returns ErrHashMismatch or the decoding error.
func (e *DamagedChunkError) Unwrap() error { return e.Err }

// Is reports that a damaged chunk is a damaged input (ErrInputDamaged), as
// the *InputProblemsError of a write that verified its input is.
func (e *DamagedChunkError) Is(target error) bool { return target == ErrInputDamaged }

// blockError is a block's decoding error, with the block's index for
// DamagedChunkError; it reads as the error it wraps.
type blockError struct {
	block int
	err   error
}

func (e *blockError) Error() string { return e.err.Error() }
func (e *blockError) Unwrap() error { return e.err }
