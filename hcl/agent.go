package hcl

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// agentBlock is one agent: its tool surface, sub-agents and routing.
type agentBlock struct {
	Name        string
	NameRange   hcl.Range
	Description string
	Use         []refOrString
	Allowed     []refOrString
	AllowedSet  bool
	Aliases     []aliasEntry
	Discovery   bool
	Subagents   []ref
	Spawn       bool
	MaxDepth    *int
	Router      []ref
	RouterSet   bool
	Model       agentModel // model, instructions, max_turns (model.go)
	DeclRange   hcl.Range
	ToolsRange  hcl.Range
}

// aliasEntry is one tools.aliases entry: alias name → target.
type aliasEntry struct {
	Name        string
	NameRange   hcl.Range
	Target      string
	TargetRange hcl.Range
}

var (
	agentSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "description"}, {Name: "discovery"}, {Name: "subagents"}, {Name: "spawn"}, {Name: "max_depth"},
			{Name: "model"}, {Name: "instructions"}, {Name: "max_turns"},
		},
		Blocks: []hcl.BlockHeaderSchema{{Type: "tools"}, {Type: "router"}},
	}
	agentToolsSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "use"}, {Name: "allowed"}, {Name: "aliases"}},
	}
	routerSchema = &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "destinations", Required: true}},
	}
)

func decodeAgent(block *hcl.Block, ctx *hcl.EvalContext) (*agentBlock, hcl.Diagnostics) {
	a := &agentBlock{Name: block.Labels[0], NameRange: block.LabelRanges[0], DeclRange: block.DefRange, ToolsRange: block.DefRange}
	diags := checkName("agent", a.Name, a.NameRange)
	content, d := block.Body.Content(agentSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	in := attrReader{attrs, ctx, &diags}
	readAttr(in, "description", evalString, &a.Description)
	readAttr(in, "discovery", evalBool, &a.Discovery)
	readAttr(in, "spawn", evalBool, &a.Spawn)
	if at := attrs["max_depth"]; at != nil {
		v, d := evalInt(at.Expr, ctx, 0, 64)
		diags = append(diags, d...)
		a.MaxDepth = &v
	}
	if at := attrs["subagents"]; at != nil {
		v, d := decodeRefs(at.Expr, "agent")
		diags = append(diags, d...)
		a.Subagents = v
	}
	a.Model, d = decodeAgentModel(attrs, ctx)
	diags = append(diags, d...)
	seen := map[string]*hcl.Block{}
	for _, b := range content.Blocks {
		if prev := seen[b.Type]; prev != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate " + b.Type + " block", Detail: fmt.Sprintf("Agent %q already has a %s block at %s.", a.Name, b.Type, shortPos(prev.DefRange)), Subject: b.DefRange.Ptr(), Context: block.DefRange.Ptr()})
			continue
		}
		seen[b.Type] = b
		switch b.Type {
		case "tools":
			a.ToolsRange = b.DefRange
			diags = append(diags, decodeAgentTools(a, b, ctx)...)
		case "router":
			a.RouterSet = true
			rc, d := b.Body.Content(routerSchema)
			diags = append(diags, d...)
			if at := rc.Attributes["destinations"]; at != nil {
				v, d := decodeRefs(at.Expr, "agent")
				for _, x := range d {
					if x.Summary == "Invalid reference" {
						x.Summary = "Invalid router destination"
						x.Detail = "Router destinations are agents: " + x.Detail
					}
				}
				diags = append(diags, d...)
				a.Router = v
			}
		}
	}
	return a, diags
}

func decodeAgentTools(a *agentBlock, block *hcl.Block, ctx *hcl.EvalContext) hcl.Diagnostics {
	content, diags := block.Body.Content(agentToolsSchema)
	if at := content.Attributes["use"]; at != nil {
		elems, d := hcl.ExprList(at.Expr)
		diags = append(diags, d...)
		for _, e := range elems {
			v, d := decodeRefOrString(e, ctx, "tool", "server", "bundle", "prompt", "resource", "skill", "runtime")
			diags = append(diags, d...)
			if !d.HasErrors() {
				if v.Ref == nil {
					diags = append(diags, checkGlobs([]str{v.Str})...)
				}
				a.Use = append(a.Use, v)
			}
		}
	}
	if at := content.Attributes["allowed"]; at != nil {
		a.AllowedSet = true
		a.Allowed = []refOrString{}
		elems, d := hcl.ExprList(at.Expr)
		diags = append(diags, d...)
		for _, e := range elems {
			v, d := decodeRefOrString(e, ctx, "tool", "prompt", "resource")
			diags = append(diags, d...)
			if !d.HasErrors() {
				if v.Ref == nil {
					diags = append(diags, checkGlobs([]str{v.Str})...)
				}
				a.Allowed = append(a.Allowed, v)
			}
		}
	}
	if at := content.Attributes["aliases"]; at != nil {
		pairs, d := hcl.ExprMap(at.Expr)
		diags = append(diags, d...)
		eachUniqueKey(pairs, "alias", &diags, func(k string, p hcl.KeyValuePair) {
			diags = append(diags, checkName("alias", k, p.Key.Range())...)
			v, d := decodeRefOrString(p.Value, ctx, "tool")
			diags = append(diags, d...)
			if d.HasErrors() {
				return
			}
			target := v.Str.Val
			if v.Ref != nil {
				target = v.Ref.Name
			}
			a.Aliases = append(a.Aliases, aliasEntry{Name: k, NameRange: p.Key.Range(), Target: target, TargetRange: p.Value.Range()})
		})
	}
	return diags
}
