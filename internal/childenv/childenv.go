// Package childenv is the environment a child process of an agent starts
// with: MCP servers over stdio and shell_exec commands. They get a short
// list of variables programs need to run, plus what the spec declares —
// never the agent's whole environment, which holds every other server's
// tokens. (The MCP TypeScript SDK's stdio client does the same.)
package childenv

import "os"

// Inherited are the variables passed through from the agent's environment.
var Inherited = []string{"HOME", "LOGNAME", "USER", "PATH", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ"}

// For returns the inherited variables that are set, then extra (KEY=VALUE
// pairs, which win over inherited ones of the same name). It calls Protect
// first: whoever builds a child's environment is about to start one.
func For(extra []string) []string {
	Protect()
	env := make([]string, 0, len(Inherited)+len(extra))
	for _, k := range Inherited {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}
