package reader_test

import (
	"fmt"
	"log"

	"github.com/unrmod/unrmod/reader"
)

// Read a legacy package, check it and show one export's properties.
func ExampleReadFile() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Header.Version, len(p.Names), len(p.Imports), len(p.Exports), len(p.Verify()), "problems")
	for _, r := range p.Lookup("LevelInfo0") {
		i, _ := r.Export()
		l, err := p.Properties(i)
		if err != nil {
			log.Fatal(err)
		}
		for k := range l.Props {
			q := &l.Props[k]
			v, err := p.PropertyValue(i, q)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("%s.%s = %s\n", p.ExportPath(i), p.NameOf(q.Name), p.FormatValue(v))
		}
	}
	// Output:
	// 69/0 27 7 5 0 problems
	// UnrmodDemoMap.LevelInfo0.Title = "Demo Arena"
	// UnrmodDemoMap.LevelInfo0.Author = "unrmod"
	// UnrmodDemoMap.LevelInfo0.IdealPlayerCount = 8
	// UnrmodDemoMap.LevelInfo0.bHighDetailMode = True
}
