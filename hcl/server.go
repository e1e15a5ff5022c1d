package hcl

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/runtime/decl"
)

// serverBlock is an MCP server the agents connect to.
type serverBlock struct {
	Name            string
	NameRange       hcl.Range
	Transport       string
	Command         string
	Args            []string
	Env             []keyValue
	URL             *ir.Value
	URLRange        hcl.Range
	Address         string
	Headers         []keyValue
	Trusted         bool
	TrustRange      hcl.Range // the trust attribute, or the block when omitted
	AllowTools      []str
	AllowSet        bool
	filter          decl.Filter // AllowTools and DenyTools, for serverExposes
	DenyTools       []str
	Queue           *ref
	Timeout         time.Duration
	Cache           time.Duration
	StartupTimeout  time.Duration // 0: defaults.startup_timeout
	ProtocolVersion string
	HealthCheck     *ir.HealthCheck
	Auth            *ir.ServerAuth
	AllowPrompts    []str
	DenyPrompts     []str
	AllowResources  []str
	DenyResources   []str
	AllowSkills     []str
	DenySkills      []str
	DeclRange       hcl.Range
	serverRequests  // sampling, elicitation (server_requests.go)

	// ForwardInstructions passes the server's initialize instructions on
	// to the host; default false, since they speak of tools the agent's
	// lists may hide.
	ForwardInstructions bool

	// Tasks: a host's task call of the server's tools becomes the
	// server's task (Tasks extension), polled and cancelled through the
	// agent; default false.
	Tasks bool

	OnDrift string // warn | pin | refuse; "": decl.Server.DriftMode's default
}

// exampleProtocolVersion is named in the error for a malformed
// protocol_version. Without one the runtime offers the newest revision it
// speaks and the server negotiates down, so nothing generated pins it.
const exampleProtocolVersion = "2025-11-25"

var (
	transports   = []string{ir.TransportHTTP, ir.TransportSSE, ir.TransportStdio, ir.TransportTCP, ir.TransportWS}
	trustLevels  = []string{"trusted", "untrusted"}
	driftModes   = []string{decl.DriftPin, decl.DriftRefuse, decl.DriftWarn}
	protocolRe   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	serverSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "transport"}, {Name: "command"}, {Name: "args"}, {Name: "env"},
			{Name: "url"}, {Name: "address"}, {Name: "headers"}, {Name: "trust"},
			{Name: "allow_tools"}, {Name: "deny_tools"}, {Name: "queue"}, {Name: "timeout"},
			{Name: "cache"}, {Name: "startup_timeout"}, {Name: "protocol_version"},
			{Name: "sampling"}, {Name: "elicitation"},
			{Name: "allow_prompts"}, {Name: "deny_prompts"}, {Name: "allow_resources"}, {Name: "deny_resources"},
			{Name: "allow_skills"}, {Name: "deny_skills"},
			{Name: "forward_instructions"}, {Name: "on_drift"}, {Name: "tasks"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "health_check"}, {Type: "auth"}},
	}
	healthCheckSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "interval"}, {Name: "timeout"}},
	}
)

// transportAttrs says which connection attributes each transport uses.
var transportAttrs = map[string][]string{
	ir.TransportStdio: {"command", "args", "env"},
	ir.TransportHTTP:  {"url", "headers"},
	ir.TransportSSE:   {"url", "headers"},
	ir.TransportWS:    {"url", "headers"},
	ir.TransportTCP:   {"address"},
}

func decodeServer(block *hcl.Block, ctx *hcl.EvalContext) (*serverBlock, hcl.Diagnostics) {
	s := &serverBlock{
		Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange,
		Trusted: true, TrustRange: block.DefRange,
	}
	diags := checkName("server", s.Name, s.NameRange)
	content, d := block.Body.Content(serverSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	in := attrReader{attrs, ctx, &diags}
	errAt := func(rng hcl.Range, summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: rng.Ptr(), Context: block.DefRange.Ptr()})
	}

	if a := attrs["transport"]; a != nil {
		v, d := evalEnum(a.Expr, ctx, "transport", transports)
		diags = append(diags, d...)
		s.Transport = v
	} else {
		// Infer the transport from the one connection attribute given.
		switch {
		case attrs["command"] != nil:
			s.Transport = ir.TransportStdio
		case attrs["address"] != nil:
			s.Transport = ir.TransportTCP
		case attrs["url"] != nil:
			s.Transport = ir.TransportHTTP
		default:
			errAt(block.DefRange, "Missing transport", fmt.Sprintf("Server %q needs a transport (%s) and its connection attribute: command for stdio, url for http, sse and ws, address for tcp.", s.Name, quoteList(transports)))
		}
	}
	if s.Transport != "" {
		used := transportAttrs[s.Transport]
		for _, name := range []string{"command", "args", "env", "url", "headers", "address"} {
			a := attrs[name]
			if a == nil || slices.Contains(used, name) {
				continue
			}
			errAt(a.NameRange, "Attribute not used by transport", fmt.Sprintf("The %s transport does not use %q; it takes %s.", s.Transport, name, strings.Join(used, ", ")))
		}
		required := map[string]string{ir.TransportStdio: "command", ir.TransportHTTP: "url", ir.TransportSSE: "url", ir.TransportWS: "url", ir.TransportTCP: "address"}[s.Transport]
		if attrs[required] == nil {
			rng := block.DefRange
			if a := attrs["transport"]; a != nil {
				rng = a.Expr.Range()
			}
			errAt(rng, "Missing "+required, fmt.Sprintf("Server %q uses the %s transport, which needs %q.", s.Name, s.Transport, required))
		}
	}

	if a := attrs["command"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		s.Command = v
		if !d.HasErrors() && strings.TrimSpace(v) == "" {
			errAt(a.Expr.Range(), "Invalid command", "The command must name a program.")
		} else if !d.HasErrors() && strings.ContainsAny(v, " \t") && !strings.ContainsAny(v, `/\`) {
			errAt(a.Expr.Range(), "Invalid command", fmt.Sprintf("%q looks like a command line; no shell is used, so put the program in command and its arguments in args.", v))
		}
	}
	if a := attrs["args"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		s.Args = strVals(v)
		diags = append(diags, checkArgSecrets(v, block.DefRange)...)
		if s.Args == nil {
			s.Args = []string{}
		}
	}
	if a := attrs["env"]; a != nil {
		v, d := decodeValueMap(a.Expr, ctx)
		diags = append(diags, d...)
		s.Env = v
		diags = append(diags, checkSecrets(v, "env", block.DefRange)...)
	}
	if a := attrs["url"]; a != nil {
		v, d := decodeValue(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.URL, s.URLRange = &v, a.Expr.Range()
			diags = append(diags, checkURLScheme(s.Transport, v, a.Expr.Range(), block.DefRange)...)
		}
	}
	if a := attrs["address"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		s.Address = v
		if !d.HasErrors() {
			if _, port, err := net.SplitHostPort(v); err != nil || port == "" {
				errAt(a.Expr.Range(), "Invalid address", fmt.Sprintf("%q is not a host:port address, such as \"127.0.0.1:7000\".", v))
			}
		}
	}
	if a := attrs["headers"]; a != nil {
		v, d := decodeValueMap(a.Expr, ctx)
		diags = append(diags, d...)
		s.Headers = v
		diags = append(diags, checkSecrets(v, "headers", block.DefRange)...)
	}
	if s.URL != nil {
		diags = append(diags, checkURLSecrets(*s.URL, s.Headers, s.URLRange, block.DefRange)...)
	}
	if a := attrs["trust"]; a != nil {
		v, d := evalEnum(a.Expr, ctx, "trust level", trustLevels)
		diags = append(diags, d...)
		s.Trusted = v != "untrusted"
		s.TrustRange = a.Expr.Range()
	}
	if a := attrs["allow_tools"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		diags = append(diags, checkGlobs(v)...)
		s.AllowTools, s.AllowSet = v, true
	}
	if a := attrs["deny_tools"]; a != nil {
		v, d := evalStrings(a.Expr, ctx)
		diags = append(diags, d...)
		diags = append(diags, checkGlobs(v)...)
		s.DenyTools = v
	}
	diags = append(diags, checkAllowDeny(s.AllowTools, s.DenyTools, block.DefRange)...)
	diags = append(diags, decodeServerFeatures(s, attrs, ctx, block.DefRange)...)
	s.filter.Add(strVals(s.AllowTools), strVals(s.DenyTools))
	if !s.Trusted && !s.AllowSet {
		errAt(s.TrustRange, "Untrusted server without allow_tools", fmt.Sprintf("Server %q is untrusted, so it needs an explicit allow_tools list; no untrusted server exposes all of its tools.", s.Name))
	}
	if a := attrs["queue"]; a != nil {
		r, d := decodeRef(a.Expr, "queue")
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.Queue = &r
		}
	}
	for _, f := range []struct {
		name string
		dst  *time.Duration
	}{{"timeout", &s.Timeout}, {"cache", &s.Cache}, {"startup_timeout", &s.StartupTimeout}} {
		name, dst := f.name, f.dst
		if a := attrs[name]; a != nil {
			v, d := evalDuration(a.Expr, ctx)
			diags = append(diags, d...)
			*dst = v
		}
	}
	if a := attrs["protocol_version"]; a != nil {
		v, d := evalString(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.ProtocolVersion = v
			if !protocolRe.MatchString(v) {
				errAt(a.Expr.Range(), "Invalid protocol version", fmt.Sprintf("%q is not an MCP protocol version; they are dates such as %q.", v, exampleProtocolVersion))
			}
		}
	}
	diags = append(diags, s.serverRequests.decode(attrs, ctx)...)
	readAttr(in, "forward_instructions", evalBool, &s.ForwardInstructions)
	readAttr(in, "on_drift", oneOf("on_drift", driftModes), &s.OnDrift)
	readAttr(in, "tasks", evalBool, &s.Tasks)
	if a := attrs["tasks"]; a != nil && s.Tasks && s.Transport == ir.TransportSSE {
		errAt(a.Expr.Range(), "Tasks not passed through over sse",
			fmt.Sprintf("Server %q: the Tasks extension needs MCP 2026-07-28, which the deprecated HTTP+SSE transport does not carry; use transport \"http\" (streamable HTTP), stdio, tcp or ws.", s.Name))
	}
	var first *hcl.Block
	for _, hb := range content.Blocks {
		if hb.Type == "auth" {
			continue
		}
		if first != nil {
			errAt(hb.DefRange, "Duplicate health_check block", fmt.Sprintf("Server %q already has a health_check block at %s.", s.Name, shortPos(first.DefRange)))
			continue
		}
		first = hb
		hc, d := decodeHealthCheck(hb, ctx)
		diags = append(diags, d...)
		s.HealthCheck = hc
	}
	diags = append(diags, s.decodeAuthBlocks(content.Blocks, ctx)...)
	return s, diags
}

// Health check defaults.
const (
	defaultHealthInterval = 30 * time.Second
	defaultHealthTimeout  = 5 * time.Second
)

func decodeHealthCheck(block *hcl.Block, ctx *hcl.EvalContext) (*ir.HealthCheck, hcl.Diagnostics) {
	hc := &ir.HealthCheck{Interval: defaultHealthInterval, Timeout: defaultHealthTimeout}
	content, diags := block.Body.Content(healthCheckSchema)
	if a := content.Attributes["interval"]; a != nil {
		v, d := evalDuration(a.Expr, ctx)
		diags = append(diags, d...)
		if !d.HasErrors() && v == 0 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid duration", Detail: "The health check interval must be greater than zero.", Subject: a.Expr.Range().Ptr()})
		}
		hc.Interval = v
	}
	if a := content.Attributes["timeout"]; a != nil {
		v, d := evalDuration(a.Expr, ctx)
		diags = append(diags, d...)
		hc.Timeout = v
		if !diags.HasErrors() && v > hc.Interval {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid health check", Detail: fmt.Sprintf("The timeout %s is longer than the interval %s; a ping would still be running when the next one starts.", v, hc.Interval), Subject: a.Expr.Range().Ptr(), Context: block.DefRange.Ptr()})
		}
	}
	return hc, diags
}

func checkURLScheme(transport string, v ir.Value, rng, ctxRange hcl.Range) hcl.Diagnostics {
	lit := v.Parts[0].Lit
	if v.Parts[0].Env != "" || !strings.Contains(lit, "://") {
		if v.Parts[0].Env == "" {
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid URL", Detail: fmt.Sprintf("%q is not an absolute URL such as \"https://host/mcp\".", lit), Subject: rng.Ptr(), Context: ctxRange.Ptr()}}
		}
		return nil // the scheme comes from the environment
	}
	scheme := strings.ToLower(lit[:strings.Index(lit, "://")])
	want := []string{"http", "https"}
	if transport == ir.TransportWS {
		want = []string{"ws", "wss"}
	}
	if transport == "" || slices.Contains(want, scheme) {
		return nil
	}
	return hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Invalid URL",
		Detail:   fmt.Sprintf("The %s transport needs a %s URL, not %q.", transport, quoteList(want), scheme),
		Subject:  rng.Ptr(),
		Context:  ctxRange.Ptr(),
	}}
}

// checkAllowDeny reports allow entries that the deny list removes entirely:
// the same entry in both, or a literal name matched by a deny glob.
func checkAllowDeny(allow, deny []str, ctxRange hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range allow {
		for _, d := range deny {
			if a.Val == d.Val || (!decl.IsGlob(a.Val) && decl.Match(d.Val, a.Val)) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Overlapping allow and deny",
					Detail:   fmt.Sprintf("%q in deny_tools removes %q, which allow_tools lists at %s; remove it from one of the lists.", d.Val, a.Val, shortPos(a.Range)),
					Subject:  d.Range.Ptr(),
					Context:  ctxRange.Ptr(),
				})
				break
			}
		}
	}
	return diags
}

// secretKeyRe matches names of headers and variables that carry credentials.
var (
	secretKeyRe   = regexp.MustCompile(`(?i)(authorization|token|secret|password|passwd|api[-_]?key|credential|private[-_]?key|cookie)`)
	secretValueRe = regexp.MustCompile(`^(?i:bearer|basic|token)\s+\S|^(ghp_|gho_|ghs_|github_pat_|sk-|xox[abpr]-|AKIA|glpat-)`)
)

// checkSecrets warns about literal credentials: they would be compiled into
// the agent binary.
func checkSecrets(kvs []keyValue, attr string, ctxRange hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, kv := range kvs {
		// literals and env() defaults: what is compiled in
		l, inDefault := compiledText(kv.Value)
		hasEnv := len(kv.Value.Parts) > 1 || kv.Value.Parts[0].Env != ""
		if (hasEnv && !inDefault) || l == "" {
			continue
		}
		how := "written literally"
		if inDefault {
			how = "in an env() default"
		}
		if secretValueRe.MatchString(l) || (secretKeyRe.MatchString(kv.Key) && len(l) >= 8) {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Literal secret",
				Detail:   fmt.Sprintf("The %s value %q looks like a credential %s; it would be compiled into the agent binary. Read it at run time instead, without a default, for example \"Bearer ${env(\"TOKEN\")}\".", attr, kv.Key, how),
				Subject:  kv.ValueRange.Ptr(),
				Context:  ctxRange.Ptr(),
			})
		}
	}
	return diags
}
