package uasset

// BuildSmall is buildSmall for the external tests.
var BuildSmall = buildSmall
