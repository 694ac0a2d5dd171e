// Package tables turns a DataTable into rows of cells and back: the rows
// of a props.Table as a JSON document (rows as objects keyed by row name,
// values as JSON numbers, strings, objects and arrays) or as the Unreal
// editor's DataTable CSV layout (a first column headed "---" holding the
// row names, one column per property, structs and arrays in their text
// form), and a document read back from either applied to the table's
// export data.
//
// Apply compares the document with the table and changes only what
// differs: rows missing from the document are removed (props.RemoveRow),
// rows new in it are added with the row struct's defaults
// (props.AddRow) and their cells set, and every cell whose value differs
// is set with props.Set (whole structs and arrays from their literal, so
// an edited member changes only that member). A document that was not
// edited changes nothing: the data comes back byte for byte. Plan returns
// the same changes as Edits without applying them, for callers that apply
// them another way (the patch operations set-property, add-row and
// remove-row).
//
// Cell text is what props.Display prints, except that a top-level string
// (or soft object path) is its bare text, as the editor writes it; strings
// inside a struct or an array are quoted. An empty cell is a property the
// row does not store (tagged rows leave a property at its default by not
// storing it) — or an empty string.
//
// ReadJSON and ReadCSV check what they read (one row per name, names
// unique, every row as wide as the header) and refuse bad input with an
// error wrapping ErrFormat that names the line or offset.
package tables
