// Package small holds the smallest useful toolgen spec: one agent reading
// notes through a builtin policy. Its generated package is generated/small.
package small

//go:generate go tool toolgen generate -o ../../generated/small ./spec
