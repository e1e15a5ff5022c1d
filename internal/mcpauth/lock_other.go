//go:build !unix

package mcpauth

import "os"

// Elsewhere entries are still replaced atomically (rename), but two
// processes refreshing the same login at once may each spend the refresh
// token; the loser's next refresh fails and asks for a login.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
