// Package builtin implements the tools a policy block can grant: fs_read and fs_write, confined
// to their allowed directories with os.Root, and shell_exec, which runs one allowed program with
// an argv (never a shell) and kills every process it started when the call ends (see
// Containment).
//
// Each tool decodes its JSON arguments strictly (unknown fields are errors) and returns either
// text for the model or an error whose message is meant for the model too.
package builtin
