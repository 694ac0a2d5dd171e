// Package convert turns a cooked legacy asset (.uasset/.umap with its
// .uexp, decoded by package uasset) into the zen package the engine's
// IoStore packer makes from it (package iostore/zen encodes it), byte for
// byte: for UE 5.3 and later as FPackageStoreOptimizer does, for UE
// 4.26/4.27 as the package conversion of IoStoreUtilities does.
//
// ToZen takes the asset and the target engine release and returns a
// *zen.Package; its Encode gives the package chunk. The rules it follows,
// each with the engine source it comes from and the corpus files that
// show it, are in docs/convert.md. Bulk data (.ubulk, .uptnl, .m.ubulk)
// passes unchanged: those files become the package's bulk-data chunks as
// they are.
//
// ToLegacy goes the other way for UE 5.3 and later: it turns a zen package
// back into the cooked asset the cooker wrote, naming its imports through
// an ImportSource (the game's global.utoc script objects and the imported
// packages; ContainerSource and OpenContainerSet make one from a container
// set), and EncodeLegacyChecked verifies the result converts back into the
// same package.
//
// Shader libraries: NewZenShaderLibrary turns a pak-era .ushaderbytecode
// into the ShaderCodeLibrary header and ShaderCode group chunks of its
// IoStore form, one group at a time through an io.ReaderAt and the game's
// Oodle library given as functions; ReadShaderAssetInfo and
// StoreEntryShaderMaps give the shader maps of the packages' store
// entries (docs/convert.md §8).
//
// convert sits above the formats it joins: it imports uasset and
// iostore/zen, and neither imports it.
package convert
