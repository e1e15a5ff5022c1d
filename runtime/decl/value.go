package decl

import (
	"fmt"
	"strconv"
	"strings"
)

// Lookup is the part's value: its literal, its variable's value, or the
// variable's default when it is unset. fromEnv reports a value read from
// the environment, which is kept out of results, errors and logs; ok is
// false for an unset variable without a default.
func (p ValuePart) Lookup(getenv func(string) (string, bool)) (val string, fromEnv, ok bool) {
	if p.Env == "" {
		return p.Lit, false, true
	}
	if val, set := getenv(p.Env); set {
		return val, true, true
	}
	return p.Default, false, p.HasDefault
}

// Resolve reads a Value's env() parts with getenv. A missing variable
// without a default is an error naming it; the caller adds which server or
// tool needed it.
func (v Value) Resolve(getenv func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for _, p := range v {
		val, _, ok := p.Lookup(getenv)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", p.Env)
		}
		b.WriteString(val)
	}
	return b.String(), nil
}

// FromEnv lists the non-empty values v reads from the environment: what
// must never show in results, errors or logs. Defaults are the spec's
// own text and are not listed.
func (v Value) FromEnv(getenv func(string) (string, bool)) []string {
	var out []string
	for _, p := range v {
		if val, fromEnv, _ := p.Lookup(getenv); fromEnv && val != "" {
			out = append(out, val)
		}
	}
	return out
}

// Text is a literal value's text, and otherwise String.
func (v Value) Text() string {
	var b strings.Builder
	for _, p := range v {
		if p.Env != "" {
			return v.String()
		}
		b.WriteString(p.Lit)
	}
	return b.String()
}

// String is the value as the spec writes it, for people:
// "Bearer ${env(\"TOKEN\")}", or env("MODEL", "gpt-4.1-mini") alone.
func (v Value) String() string {
	call := func(p ValuePart) string {
		if p.HasDefault {
			return "env(" + strconv.Quote(p.Env) + ", " + strconv.Quote(p.Default) + ")"
		}
		return "env(" + strconv.Quote(p.Env) + ")"
	}
	if len(v) == 1 && v[0].Env != "" {
		return call(v[0])
	}
	var b strings.Builder
	for _, p := range v {
		if p.Env == "" {
			b.WriteString(p.Lit)
		} else {
			b.WriteString("${" + call(p) + "}")
		}
	}
	return strconv.Quote(b.String())
}
