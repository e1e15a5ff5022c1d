package runtime

import "slices"

func sortFunc[T any](s []T, cmp func(a, b T) int) { slices.SortStableFunc(s, cmp) }
