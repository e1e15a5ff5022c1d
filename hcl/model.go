package hcl

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// modelBlock is a language model an agent binary runs its agents on.
type modelBlock struct {
	Name        string
	NameRange   hcl.Range
	Provider    string
	ModelName   ir.Value
	BaseURL     ir.Value
	APIKey      ir.Value
	MaxTokens   int
	Temperature *float64
	Timeout     time.Duration
	Headers     []keyValue
	DeclRange   hcl.Range
}

// The agent settings that belong to models: decoded with the agent block.
type agentModel struct {
	Model        *ref
	Instructions string
	MaxTurns     int // 0: unset
}

// defaultMaxTurns bounds an agent's loop when max_turns is not set.
const defaultMaxTurns = 20

var modelSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "provider", Required: true}, {Name: "name", Required: true}, {Name: "base_url"}, {Name: "api_key"},
		{Name: "max_tokens"}, {Name: "temperature"}, {Name: "timeout"}, {Name: "headers"},
	},
}

func decodeModel(block *hcl.Block, ctx *hcl.EvalContext) (*modelBlock, hcl.Diagnostics) {
	m := &modelBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange}
	diags := checkName("model", m.Name, m.NameRange)
	content, d := block.Body.Content(modelSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	in := attrReader{attrs, ctx, &diags}
	readAttr(in, "provider", oneOf("provider", model.Providers), &m.Provider)
	if a, ok := readAttr(in, "name", decodeValue, &m.ModelName); ok && emptyLiteral(m.ModelName) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid value", Detail: "The model name is the provider's name for it, such as \"gpt-4.1-mini\" or \"claude-sonnet-4-5\"; it cannot be empty.", Subject: a.Expr.Range().Ptr()})
	}
	if a, ok := readAttr(in, "base_url", decodeValue, &m.BaseURL); ok {
		diags = append(diags, checkBaseURL(m.BaseURL, a.Expr.Range(), block.DefRange)...)
	}
	if a, ok := readAttr(in, "api_key", decodeValue, &m.APIKey); ok {
		lit, ok := literalOnly(m.APIKey)
		_, inDefault := compiledText(m.APIKey)
		if (ok && lit != "") || inDefault {
			how := "is written literally"
			if inDefault {
				how = "has a default in env()"
			}
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Literal secret",
				Detail:   "The api_key of model " + fmt.Sprintf("%q", m.Name) + " " + how + "; it would be compiled into the agent binary. Read it when the binary runs instead, without a default: api_key = env(\"OPENAI_API_KEY\").",
				Subject:  a.Expr.Range().Ptr(),
				Context:  block.DefRange.Ptr(),
			})
		}
	}
	readAttr(in, "max_tokens", intIn(1, 1<<31-1), &m.MaxTokens)
	if a := attrs["temperature"]; a != nil {
		v, d := evalFloat(a.Expr, ctx, 0, 2)
		diags = append(diags, d...)
		if !d.HasErrors() {
			m.Temperature = &v
		}
	}
	if a, ok := readAttr(in, "timeout", evalDuration, &m.Timeout); ok && m.Timeout <= 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid duration", Detail: "The timeout bounds each request to the model; it must be longer than zero.", Subject: a.Expr.Range().Ptr()})
	}
	if a, _ := readAttr(in, "headers", decodeValueMap, &m.Headers); a != nil {
		diags = append(diags, checkSecrets(m.Headers, "headers", block.DefRange)...)
	}
	return m, diags
}

// checkBaseURL warns about credentials written into a literal base_url
// (https://user:secret@host/v1, ?api_key=...) and rejects what is no URL.
func checkBaseURL(v ir.Value, rng, ctxRange hcl.Range) hcl.Diagnostics {
	lit, ok := literalOnly(v)
	if !ok || lit == "" {
		return nil
	}
	u, err := url.Parse(lit)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid URL", Detail: fmt.Sprintf("%q is not an http or https URL; base_url is where the provider's API is, such as \"http://localhost:11434/v1\".", lit), Subject: rng.Ptr(), Context: ctxRange.Ptr()}}
	}
	_, hasPassword := u.User.Password()
	secretQuery := false
	for k := range u.Query() {
		secretQuery = secretQuery || secretKeyRe.MatchString(k)
	}
	if hasPassword || secretQuery || secretValueRe.MatchString(lit) {
		return hcl.Diagnostics{{Severity: hcl.DiagWarning, Summary: "Literal secret", Detail: "The base_url carries a credential written literally; it would be compiled into the agent binary. Put the credential in api_key = env(\"NAME\"), or read the whole URL with env().", Subject: rng.Ptr(), Context: ctxRange.Ptr()}}
	}
	return nil
}

// evalFloat reads a number in [min, max].
func evalFloat(expr hcl.Expression, ctx *hcl.EvalContext, min, max float64) (float64, hcl.Diagnostics) {
	v, diags := evalValue(expr, ctx)
	if diags.HasErrors() {
		return 0, diags
	}
	v, err := convert.Convert(v, cty.Number)
	if err != nil || v.IsNull() {
		return 0, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid number", Detail: "A number is required here.", Subject: expr.Range().Ptr()})
	}
	f, _ := v.AsBigFloat().Float64()
	if f < min || f > max {
		return 0, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid number", Detail: fmt.Sprintf("The value must be between %g and %g, not %s.", min, max, v.AsBigFloat().Text('g', -1)), Subject: expr.Range().Ptr()})
	}
	return f, diags
}

// decodeAgentModel reads an agent's model, instructions and max_turns.
func decodeAgentModel(attrs hcl.Attributes, ctx *hcl.EvalContext) (agentModel, hcl.Diagnostics) {
	var am agentModel
	var diags hcl.Diagnostics
	in := attrReader{attrs, ctx, &diags}
	if a := attrs["model"]; a != nil {
		r, d := decodeRef(a.Expr, "model")
		diags = append(diags, d...)
		if !d.HasErrors() {
			am.Model = &r
		}
	}
	readAttr(in, "instructions", evalString, &am.Instructions)
	readAttr(in, "max_turns", intIn(1, 10000), &am.MaxTurns)
	return am, diags
}

// decodeDefaultModel reads defaults { model = model.NAME }.
func decodeDefaultModel(attrs hcl.Attributes) (*ref, hcl.Diagnostics) {
	a := attrs["model"]
	if a == nil {
		return nil, nil
	}
	r, diags := decodeRef(a.Expr, "model")
	if diags.HasErrors() {
		return nil, diags
	}
	return &r, diags
}

func (r *resolver) resolveModels() []*ir.Model {
	return inNameOrder(r.models, func(m *modelBlock) *ir.Model {
		return &ir.Model{
			Name: m.Name, GoName: ir.GoName(m.Name), Provider: m.Provider, ModelName: m.ModelName,
			BaseURL: m.BaseURL, APIKey: m.APIKey, MaxTokens: m.MaxTokens, Temperature: m.Temperature,
			Timeout: m.Timeout, Headers: irKeyValues(m.Headers), Range: m.DeclRange,
		}
	})
}

// resolveDefaultModel checks defaults.model and returns its name.
func (r *resolver) resolveDefaultModel() string {
	if r.cfg.defaultModel == nil || !r.lookup(*r.cfg.defaultModel) {
		return ""
	}
	return r.cfg.defaultModel.Name
}

// resolveAgentModels fills in each agent's model (its own, else the
// default), instructions and max_turns, then warns about agents that
// another agent starts (sub-agent, spawn target, router destination) but
// that have no model to run on.
func (r *resolver) resolveAgentModels(agents []*ir.Agent, defaultModel string) {
	for _, agent := range agents {
		a := r.agents[agent.Name]
		agent.Model, agent.Instructions, agent.MaxTurns = defaultModel, a.Model.Instructions, defaultMaxTurns
		if a.Model.Model != nil && r.lookup(*a.Model.Model) {
			agent.Model = a.Model.Model.Name
		}
		if a.Model.MaxTurns > 0 {
			agent.MaxTurns = a.Model.MaxTurns
		}
	}
	if len(r.models) == 0 {
		// No agent runs in the binary: every agent runs under its host.
		return
	}
	started := map[string][]string{} // agent → what starts it
	byName := map[string]*ir.Agent{}
	for _, a := range agents {
		byName[a.Name] = a
	}
	for _, a := range agents {
		for _, s := range a.Subagents {
			started[s] = append(started[s], fmt.Sprintf("a sub-agent of %q", a.Name))
		}
		for _, d := range a.Router {
			started[d] = append(started[d], fmt.Sprintf("a router destination of %q", a.Name))
		}
		if a.Spawn && len(a.Subagents) == 0 {
			for _, b := range agents {
				if b.Name != a.Name {
					started[b.Name] = append(started[b.Name], fmt.Sprintf("a spawn target of %q", a.Name))
				}
			}
		}
	}
	for _, name := range keys(started) {
		a := byName[name]
		if a == nil || a.Model != "" {
			continue
		}
		why := started[name]
		sort.Strings(why)
		b := r.agents[name]
		r.warnf(b.NameRange, b.DeclRange, "Agent without model",
			"Agent %q is %s, but has no model (neither model = model.NAME nor defaults { model = … }). It can still run under an MCP host that supports sampling with tools; to run it from the agent binary, give it a model.%s",
			name, strings.Join(why, ", "), didYouMeanModels(keys(r.models)))
	}
}

func didYouMeanModels(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" Declared models: %s.", quoteList(names))
}
