package tables_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/unrmod/unrmod/tables"
)

// A DataTable document in the editor's CSV layout: the row names under
// "---", one column per property, structs and arrays in their text form.
func ExampleReadCSV() {
	doc, err := tables.ReadCSV(strings.NewReader("---,Damage,Position,Tags\nSword,10,\"(X=1,Y=2,Z=3)\",\"[\"\"sharp\"\"]\"\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range doc.Rows {
		fmt.Println(r.Name, r.Cells["Damage"].Text, r.Cells["Position"].Text, r.Cells["Tags"].Text)
	}
	// The same document as JSON.
	_ = tables.WriteJSON(os.Stdout, doc)
	// Output:
	// Sword 10 (X=1,Y=2,Z=3) ["sharp"]
	// {
	//   "row_struct": "",
	//   "columns": [
	//     {"name": "Damage", "type": ""},
	//     {"name": "Position", "type": ""},
	//     {"name": "Tags", "type": ""}
	//   ],
	//   "rows": {
	//     "Sword": {"Damage": "10", "Position": "(X=1,Y=2,Z=3)", "Tags": "[\"sharp\"]"}
	//   }
	// }
}
