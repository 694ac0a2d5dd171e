package zen

import "strings"

// LocalizedSource returns the source package a localized package stands
// for, by the engine's rule for names holding /L10N/<culture>/: the first
// "/L10N/" (in any case) followed by a culture of two characters or more
// and a slash is removed with the culture, which is returned in lower case
// ("/Game/L10N/fr/UI/Title" gives "/Game/UI/Title" and "fr"). ok is false
// for a name that is not localized. UE 4.26/4.27 packers store this source
// name in the package summary (SourceName) and give the public exports
// that the source package also has the source's GlobalImportIndex.
func LocalizedSource(name string) (source, culture string, ok bool) {
	const l10n = "/l10n/"
	at := strings.Index(strings.ToLower(name), l10n)
	if at < 0 {
		return name, "", false
	}
	end := at + len(l10n)
	slash := strings.IndexByte(name[end:], '/')
	if slash < 2 {
		return name, "", false
	}
	return name[:at] + name[end+slash:], strings.ToLower(name[end : end+slash]), true
}

// SourcePackageName returns the name the package stands for: the summary's
// SourceName in a 4.26/4.27 package, which differs from the package name
// for a localized package (its name without /L10N/<culture>) and for a
// package a plugin redirects to /Game; the package name otherwise, or when
// SourceName is not a valid index.
func (p *Package) SourcePackageName() string {
	if p.Layout.IsUE5() {
		return p.PackageName()
	}
	s, err := p.MappedString(p.SourceName)
	if err != nil || s == "" {
		return p.PackageName()
	}
	return s
}

// sourceExportPath is ExportPath with the package's source name: the
// path the 4.26/4.27 packer hashes for a redirected package's exports and
// for the public exports a localized package shares with its source.
func (p *Package) sourceExportPath(i int) string {
	path := p.ExportPath(i)
	return p.SourcePackageName() + path[len(p.PackageName()):]
}
