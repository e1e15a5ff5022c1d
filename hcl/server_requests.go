package hcl

import (
	"github.com/hashicorp/hcl/v2"
)

// Who answers a server's sampling and elicitation requests.
var (
	samplingAnswers    = []string{"deny", "host", "model"}
	elicitationAnswers = []string{"deny", "host"}
)

// serverRequests is who answers what a server asks during a call:
// sampling (host, the default; model, the agent's own; deny) and
// elicitation (host or deny).
type serverRequests struct {
	Sampling    string
	Elicitation string
}

func (r *serverRequests) decode(attrs hcl.Attributes, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	in := attrReader{attrs, ctx, &diags}
	readAttr(in, "sampling", oneOf("sampling", samplingAnswers), &r.Sampling)
	readAttr(in, "elicitation", oneOf("elicitation", elicitationAnswers), &r.Elicitation)
	return diags
}
