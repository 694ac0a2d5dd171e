package ue

import "strings"

// Setting names a setting of the caller that an error advises, so that each
// front end can name it in its own words: a Go program by its option field,
// the command line by its flag, a GUI by its control.
type Setting int

// The settings errors advise.
const (
	// SettingKey is the AES key that decrypts a container or pak.
	SettingKey Setting = iota + 1
	// SettingExport asks for an asset's export rather than a native
	// /Script/ object.
	SettingExport
	// SettingInPlace writes a patch's output over its input, keeping the
	// original as a backup.
	SettingInPlace
	// SettingForce lets an output replace an existing file that is not its
	// earlier output.
	SettingForce
	// SettingPreserveLayout keeps a legacy package's layout, so that no
	// export moves.
	SettingPreserveLayout
	// SettingOodle is the game's own Oodle library, which decodes and
	// encodes Oodle blocks (package ue/oodle loads it).
	SettingOodle
)

// OodleLibrary is the advice of an error about Oodle data that no codec
// decodes or encodes: give the game's Oodle library through the setting
// the library's API names api (e.g. "Options.Codecs"). err, the cause, may
// be nil.
func OodleLibrary(api string, err error) *Advice {
	return &Advice{Setting: SettingOodle, Name: api, Err: err,
		Before: "Oodle needs the game's own Oodle library (oo2core_9_win64.dll in the game's Binaries/Win64 or Engine/Binaries/ThirdParty/Oodle, liboo2corelinux64.so.9 for Linux): give it with "}
}

// Advice is an error whose message advises the caller to change a
// setting. Its text is Before, the setting's name and After; Error names
// the setting as the library that returned it does (Name, e.g.
// "Options.Key"), and Text lets a front end name it its own way: the
// command line says "--aes-key". Err is what went wrong, for errors.Is
// (a sentinel such as ErrKeyRequired), or nil.
type Advice struct {
	Setting Setting
	Name    string // the setting as the library's API names it
	Before  string // the message up to the setting's name
	After   string // the message after it
	Err     error
}

// Error returns the message with the setting named as the library's API
// names it.
func (a *Advice) Error() string { return a.Text(a.Name) }

// Text returns the message with the setting named name.
func (a *Advice) Text(name string) string { return a.Before + name + a.After }

// Unwrap returns the error the advice is about.
func (a *Advice) Unwrap() error { return a.Err }

// Reword returns text, a message built from err (err.Error(), a part of
// it, or a Problem's Msg), with each setting that an *Advice within err
// advises named by name instead of by the library's name. A setting name
// returns "" for is left as the library words it.
func Reword(err error, text string, name func(Setting) string) string {
	for _, a := range advices(err, nil) {
		n := name(a.Setting)
		if n == "" {
			continue
		}
		text = strings.ReplaceAll(text, a.Error(), a.Text(n))
	}
	return text
}

// advices appends every *Advice in err's tree to out.
func advices(err error, out []*Advice) []*Advice {
	for err != nil {
		if a, ok := err.(*Advice); ok {
			out = append(out, a)
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				out = advices(e, out)
			}
			return out
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return out
		}
	}
	return out
}
