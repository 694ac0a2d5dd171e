// Package apisurface holds the checks on unrmod's exported API as a whole:
// what a program outside the module can and cannot reach through it.
package apisurface
