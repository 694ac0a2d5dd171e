package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/unrmod/unrmod/report"
	"github.com/unrmod/unrmod/safefile"
)

// shaderLibraryInfo reads the summary of the shader library file.
func shaderLibraryInfo(file string) (*report.ShaderLibraryInfo, error) {
	f, size, err := safefile.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return report.NewShaderLibraryInfo(file, f, size)
}

// verifyShaderLibrary verifies the shader library file.
func verifyShaderLibrary(file string) report.FileVerify {
	f, size, err := safefile.OpenRegular(file)
	if err != nil {
		msg := "not checked: " + err.Error()
		return report.FileVerify{File: file, Problems: []report.Problem{{Message: msg, Text: msg}}}
	}
	defer f.Close()
	return report.VerifyShaderLibrary(file, f, size)
}

// writeShaderLibraryInfo prints a shader library's info as aligned
// "Field: value" lines.
func writeShaderLibraryInfo(w io.Writer, d *report.ShaderLibraryInfo) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-19s%s\n", k+":", fmt.Sprintf(format, args...))
	}
	line("File", "%s", d.File)
	switch d.Form {
	case "cooked":
		line("Kind", "shader library as the cooker writes it (version %d)", d.Version)
	default:
		line("Kind", "shader library header in its IoStore form (version %d), its shaders in ShaderCode chunks", d.Version)
	}
	if d.Library != "" {
		line("Library", "%s, format %s", d.Library, d.Format)
		line("Chunk", "%s (ShaderCodeLibrary)", d.ChunkID)
	}
	line("Shader maps", "%d", d.ShaderMaps)
	line("Shaders", "%d", d.Shaders)
	if d.Form == "cooked" {
		line("Code", "%d bytes, %d shaders stored compressed (Oodle: packing needs the game's Oodle library)", d.CodeBytes, d.CompressedShaders)
		line("Groups", "%d ShaderCode chunks when packed", d.Groups)
	} else {
		line("Groups", "%d ShaderCode chunks, %d stored compressed", d.Groups, d.CompressedGroups)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
