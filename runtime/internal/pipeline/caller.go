package pipeline

import "context"

// LocalCaller is the caller of every call that came without an
// authenticated identity: the agent's own CLI, stdio, and an HTTP agent
// without inbound auth, which serves one caller (whoever reaches its
// loopback port).
const LocalCaller = "local"

type callerKey struct{}

// WithCallerID names who makes the calls made with ctx (serve sets it
// from the inbound token: its name, or a JWT's sub). Budgets and rate
// limits are counted per caller, and events carry the name.
func WithCallerID(ctx context.Context, id string) context.Context {
	if id == "" {
		return ctx
	}
	return context.WithValue(ctx, callerKey{}, id)
}

// CallerID is the caller ctx names, LocalCaller if none.
func CallerID(ctx context.Context) string {
	if id, ok := ctx.Value(callerKey{}).(string); ok {
		return id
	}
	return LocalCaller
}
