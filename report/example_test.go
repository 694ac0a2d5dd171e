package report_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/unrmod/unrmod/reader"
	"github.com/unrmod/unrmod/report"
)

// A program shows a legacy package's header with the data `unrmod info
// --json` prints.
func ExampleNewPackageInfo() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		fmt.Println(err)
		return
	}
	info := report.NewPackageInfo("UnrmodDemoMap.unr", p)
	fmt.Println(info.Package, info.Version.Engine, info.Flags.Names, info.Exports.Count)
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(info.Names)
	// Output:
	// UnrmodDemoMap Unreal Engine 1 [AllowDownload] 5
	// {"count":27,"offset":64}
}

// A dump holds only the tables asked for.
func ExampleNewPackageDump() {
	p, err := reader.ReadFile("../examples/packages/UnrmodDemoMap.unr")
	if err != nil {
		fmt.Println(err)
		return
	}
	d := report.NewPackageDump("UnrmodDemoMap.unr", p, report.Tables{Exports: true})
	fmt.Println(d.Names == nil, d.Imports == nil)
	e := (*d.Exports)[0]
	fmt.Println(e.Class, e.Path, e.Flags.Value)
	// Output:
	// true true
	// Package UnrmodDemoMap.Skins 0x00070004
}
