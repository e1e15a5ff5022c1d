// Package model is the one way toolgen talks to a language model: the
// agent loop and `toolgen enrich` both send a Request and get a Response,
// whatever the provider. Two providers cover the servers people run, each
// through its official Go SDK, each in its own package that registers
// itself (Register) so a binary links only the SDKs its spec declares:
//
//   - "openai": Chat Completions (github.com/openai/openai-go), spoken by
//     OpenAI, Azure OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter …
//     Package runtime/models/openai.
//   - "anthropic": the Messages API (github.com/anthropics/anthropic-sdk-go).
//     Package runtime/models/anthropic.
//
// This package holds no SDK: the interfaces, the wire-independent types,
// the registry and the helpers both providers share. New with a provider
// whose package is not linked is an error naming the package to import.
//
// A third Model has no server of its own: NewSampling asks the MCP host
// that called the agent (sampling/createMessage with tools, MCP
// 2025-11-25), so an agent without a model can run on the host's model
// when CanSample says the host offers it. Hosts report no token counts.
//
// A turn:
//
//	m, err := model.New(model.Config{Label: "fast", Provider: "openai", Name: "gpt-4.1-mini", APIKey: key})
//	tools, err := model.NewToolset(surface) // once per surface change
//	msgs := []model.Message{model.NewUserMessage(prompt)}
//	resp, err := m.Generate(ctx, &model.Request{System: sys, Messages: msgs, Tools: tools})
//	msgs = append(msgs, resp.Message)       // then model.NewToolResult(call.ID, …) per resp.ToolCalls
//
// # What a user sets
//
// base_url follows each SDK's own convention: OpenAI-compatible servers end
// in "/v1", Anthropic is the host root. Leave it unset for the providers'
// own services.
//
//	OpenAI     provider = "openai", name = "gpt-4.1-mini", api_key = env("OPENAI_API_KEY")
//	Anthropic  provider = "anthropic", name = "claude-sonnet-4-5", api_key = env("ANTHROPIC_API_KEY")
//	Ollama     provider = "openai", name = "qwen3", base_url = "http://localhost:11434/v1",
//	           api_key = any non-empty value (Ollama ignores it)
//
// Nothing is read from the environment implicitly (no OPENAI_* or
// ANTHROPIC_* variables, no profile files): the spec says where each value
// comes from. A 404 error reminds the user of the base_url convention.
//
// max_tokens is sent to OpenAI-compatible servers as max_completion_tokens
// (reasoning models refuse max_tokens); Ollama and LM Studio ignore it and
// use their own limit. Anthropic requires a cap: DefaultAnthropicMaxTokens.
//
// # Streaming
//
// Request.Stream uses the SDK's streaming API and accumulates the answer, so
// the Response is the same either way; a cancelled context stops it
// promptly. Plain requests are the default for both providers; Anthropic
// streams anyway when max_tokens is so large that its SDK refuses a plain
// request (an answer it expects to take more than ten minutes).
//
// # Retries, timeouts, errors
//
// The SDKs retry 408, 409, 429, 5xx and connection errors with backoff,
// honouring Retry-After: Config.MaxRetries times (DefaultMaxRetries). A
// Retry-After longer than MaxRetryAfter ends the call instead. Timeout bounds
// each attempt, streamed body included; the context bounds the whole call.
// Every failure is an *Error that names the model and never holds the API
// key or header values: `model fast (openai gpt-4.1-mini): 401 Unauthorized:
// Incorrect API key provided`.
//
// # Tools and history, encoded once
//
// The whole conversation goes to the model on every turn, so nothing is
// encoded twice. A Toolset encodes each provider's tools array once; every
// turn splices those bytes in. Messages from NewUserMessage, NewToolResult
// and Response.Message keep their wire form (made by the SDK's own types)
// and later turns reuse it, so a turn encodes only its new messages (a
// Message literal works too, encoded every turn). The SDK still sends the
// request (auth, headers, retries) and decodes the answer into its types.
//
// The assistant message of a Response carries the provider's own form
// (Raw): Anthropic content blocks, thinking blocks included, go back
// unchanged, as the API requires. On Anthropic the request marks cache
// breakpoints after the tools, the system prompt and the last message, so
// each turn reads the previous turn's prefix from cache; OpenAI caches
// prefixes by itself. Both report it in Usage.CacheReadTokens.
package model
