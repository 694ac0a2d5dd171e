package report

import (
	"errors"

	"github.com/unrmod/unrmod/ue"
)

// Options tune how a report words what it quotes.
type Options struct {
	// Setting names a setting that a quoted error advises (the AES key,
	// …) as the front end calls it: the command line says "--aes-key".
	// Nil, or "" for a setting, keeps the library's name (see ue.Reword).
	Setting func(ue.Setting) string
}

// text returns err's message, worded for the front end.
func (o *Options) text(err error) string { return o.reword(err, err.Error()) }

// msg returns err's message without the file name and structure a
// *ue.FormatError starts with, for a report that names them already.
func (o *Options) msg(err error) string {
	var fe *ue.FormatError
	if errors.As(err, &fe) && fe.Msg != "" {
		return o.reword(err, fe.Msg)
	}
	return o.text(err)
}

// reword names the settings err advises in text as the front end does.
func (o *Options) reword(err error, text string) string {
	if o == nil || o.Setting == nil {
		return text
	}
	return ue.Reword(err, text, o.Setting)
}
