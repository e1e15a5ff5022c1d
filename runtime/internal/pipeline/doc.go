// Package pipeline holds the parts of the runtime's call pipeline: argument
// validation (schemas compiled once per pool tool), the response cache,
// queues, the spill store for outputs over the size cap, the context
// budget, secret scrubbing and the cap on error texts. The order they run
// in, and what each callable entry precomputes, stay in the runtime root's
// call.go: these parts know nothing of sessions.
package pipeline
