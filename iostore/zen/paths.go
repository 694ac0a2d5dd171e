package zen

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/unrmod/unrmod/ue"
)

// This file splits and checks the paths and names users write: long
// package names (/Game/Maps/Arena), object paths (/Game/Maps/Arena.Arena:
// PersistentLevel) and FNames with a number suffix (Light_0).

// ObjectPath is an object's full path split at the first '.' after the
// package name: Package + "." + Object is the path.
type ObjectPath struct {
	Package string // the long package name, /Game/Props/BP_Crate
	Object  string // the rest, with its separators: BP_Crate_C, Arena:PersistentLevel
}

// Relative returns the object's path inside its package with every
// separator as '/', as UE5 public export hashes take it: Arena/PersistentLevel.
func (p ObjectPath) Relative() string {
	return strings.NewReplacer(".", "/", ":", "/").Replace(p.Object)
}

// String returns Package + "." + Object.
func (p ObjectPath) String() string { return p.Package + "." + p.Object }

// ParseObjectPath splits a full object path with '/' folder separators: the
// package name is everything before the first '.' after the last '/', the
// object everything after that '.'. Both parts must be valid; the error
// says what is wrong without repeating the input.
func ParseObjectPath(s string) (ObjectPath, error) {
	if err := checkRooted(s); err != nil {
		return ObjectPath{}, err
	}
	slash := strings.LastIndexByte(s, '/')
	dot := strings.IndexByte(s[slash+1:], '.')
	if dot < 0 {
		if strings.ContainsAny(s[:slash], ".:") {
			return ObjectPath{}, errors.New("a '/' after the object name: separate subobjects with ':' or '.', not '/'")
		}
		if strings.Contains(s[slash+1:], ":") {
			return ObjectPath{}, errors.New("a ':' right after the package name: the object follows a '.', subobjects a ':'")
		}
		return ObjectPath{}, errors.New("no object: add '.' and the object name after the package name")
	}
	p := ObjectPath{Package: s[:slash+1+dot], Object: s[slash+1+dot+1:]}
	if err := CheckPackageName(p.Package); err != nil {
		return ObjectPath{}, err
	}
	if err := checkObjectName(p.Object); err != nil {
		return ObjectPath{}, err
	}
	return p, nil
}

// checkRooted checks the start and end of a path.
func checkRooted(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case strings.TrimSpace(s) != s:
		return errors.New("white space at the start or end")
	case s[0] != '/':
		return errors.New("does not start with '/'")
	}
	return nil
}

// CheckPackageName checks a long package name: /Root/Name or deeper, no
// empty folder, no '.' or ':' (which start an object).
func CheckPackageName(s string) error {
	if err := checkRooted(s); err != nil {
		return err
	}
	if i := strings.IndexAny(s, ".:"); i >= 0 {
		return fmt.Errorf("package name %q has a '%c'", s, s[i])
	}
	parts := strings.Split(s[1:], "/")
	for _, part := range parts {
		if part == "" {
			return fmt.Errorf("package name %q has an empty folder or name ('//' or a '/' at the end)", s)
		}
	}
	if len(parts) < 2 {
		return fmt.Errorf("package name %q is only a root or only a name", s)
	}
	return nil
}

// CheckScriptPath checks the path of a native object or package:
// /Script/Module, optionally followed by an object path
// (/Script/Engine.Actor, /Script/Engine.Default__Actor).
func CheckScriptPath(s string) error {
	if err := checkRooted(s); err != nil {
		return err
	}
	if len(s) < len("/Script/") || !strings.EqualFold(s[:len("/Script/")], "/Script/") {
		return &ue.Advice{Setting: ue.SettingExport, Name: "ParseObjectPath", Before: "not under /Script/ (for an asset's export use ", After: ")"}
	}
	slash := strings.LastIndexByte(s, '/')
	if !strings.ContainsAny(s[slash+1:], ".:") && !strings.ContainsAny(s[:slash], ".:") {
		return CheckPackageName(s)
	}
	_, err := ParseObjectPath(s)
	return err
}

// checkObjectName checks the object part of a path: names separated by
// '.' or ':', none empty.
func checkObjectName(s string) error {
	if s == "" {
		return errors.New("no object name after the '.'")
	}
	if strings.TrimSpace(s) != s {
		return errors.New("white space at the start or end")
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' && s[i] != ':' {
			continue
		}
		if i == start {
			return fmt.Errorf("object path %q has an empty name (two separators in a row, or one at the start or end)", s)
		}
		start = i + 1
	}
	return nil
}

// SplitNameNumber splits a name the way the engine splits a number suffix
// off an FName: '_' and 1–10 digits at the end, no leading zero unless the
// number is 0, a value below 2147483647, and a non-empty name before it.
// number is the suffix as written ("0" for Light_0; FMappedName stores 1).
func SplitNameNumber(name string) (base, number string, ok bool) {
	i := len(name)
	for i > 0 && '0' <= name[i-1] && name[i-1] <= '9' {
		i--
	}
	digits := name[i:]
	if digits == "" || len(digits) > 10 || i < 2 || name[i-1] != '_' || len(digits) > 1 && digits[0] == '0' {
		return "", "", false
	}
	if n, err := strconv.ParseUint(digits, 10, 64); err != nil || n >= 1<<31-1 {
		return "", "", false
	}
	return name[:i-1], digits, true
}
