package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/toolgen-dev/toolgen/hcl/ir"
	"github.com/toolgen-dev/toolgen/internal/enrich"
	"github.com/toolgen-dev/toolgen/internal/model"
	"github.com/toolgen-dev/toolgen/templates"
)

// EnrichCommand is how a user runs enrichment: a command of its own, so
// that toolgen (what go generate compiles in every build) links no model
// SDK. It links both providers.
const EnrichCommand = "go run github.com/toolgen-dev/toolgen/cmd/toolgen-enrich"

// runEnrich is `toolgen enrich`: --dry-run plans here (no model is asked);
// asking is cmd/toolgen-enrich's, and this says exactly what to run.
func runEnrich(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--dry-run" || a == "-dry-run" || a == "-h" || a == "--help" {
			return enrichAs("toolgen enrich", args, stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "toolgen enrich: asking a model needs the provider SDKs, which toolgen does not link "+
		"(go generate stays fast); run instead:\n\n\t%s %s\n\nfrom your module (--dry-run plans here without asking).\n",
		EnrichCommand, strings.Join(args, " "))
	return exitUsage
}

// Enrich is cmd/toolgen-enrich: `toolgen-enrich [--force] [--dry-run] DIR`.
func Enrich(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return enrichAs("toolgen-enrich", args, stdin, stdout, stderr)
}

// enrichAs asks the model of the spec's toolgen { enrich } block for the
// search queries of every catalog tool (declared tools and locked server
// tools) that is new or changed since DIR/toolgen.enrich.json was
// written, and writes that file. `generate` indexes it offline. The model's
// provider must be linked into the calling binary.
func enrichAs(prog string, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fset := newFlags("enrich", stderr, "usage: "+prog+" [--force] [--dry-run] DIR")
	force := fset.Bool("force", false, "ask about every tool again, unchanged ones too")
	dry := fset.Bool("dry-run", false, "print what would be asked and its estimated cost; ask nothing")
	dir, spec, code := loadDirArg(fset, args, stderr)
	if code >= 0 {
		return code
	}
	if spec.Enrich == nil {
		fmt.Fprintf(stderr, prog+": %s has no toolgen { enrich { model = model.NAME } } block: declare a model block and name it there\n", dir)
		return exitDiags
	}
	stored, err := enrich.ReadStored(dir)
	if err != nil {
		fmt.Fprintf(stderr, prog+": %v\n", err)
		return exitDiags
	}
	// A Go tool's parameters come from its type-checked argument type.
	goTools, diags := templates.LoadGoTools(spec)
	if diags.HasErrors() {
		writeDiags(stderr, "text", diags, nil)
		return exitDiags
	}
	d := templates.RuntimeRegistry(spec, goTools).Model(spec.Enrich.Model)
	name, err := d.ModelName.Resolve(os.LookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, prog+": model %s: name: %v\n", d.Name, err)
		return exitDiags
	}
	opt := enrich.Options{ModelName: d.Provider + " " + name, Queries: spec.Enrich.Queries,
		Concurrency: spec.Enrich.Concurrency, Force: *force, Progress: stderr}
	tools := catalogTools(spec, goTools)
	if *dry {
		plan, err := enrich.NewPlan(tools, stored, opt)
		if err != nil {
			fmt.Fprintf(stderr, prog+": %v\n", err)
			return exitDiags
		}
		fmt.Fprintf(stdout, "enrich: %d to ask (%d changed), %d unchanged, %d dropped; %d requests, about %d tokens in and %d out\n",
			len(plan.Ask), len(plan.Changed), len(plan.Keep), len(plan.Drop), plan.Requests, plan.EstimatedInputTokens, plan.EstimatedOutputTokens)
		for _, t := range plan.Ask {
			fmt.Fprintf(stdout, "  %s\n", t.Name)
		}
		return exitOK
	}
	cfg, err := model.FromDecl(d, os.LookupEnv)
	if err == nil {
		opt.Model, err = model.New(cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, prog+": %v\n", err)
		return exitDiags
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	report, err := enrich.Run(ctx, tools, stored, opt)
	if report != nil {
		// Everything already answered is paid for: keep it, even when
		// the run stopped early.
		if _, werr := enrich.WriteStored(dir, report.File); werr != nil {
			fmt.Fprintf(stderr, prog+": %v\n", werr)
			return exitDiags
		}
		for _, f := range report.Failed {
			fmt.Fprintf(stderr, prog+": %s: left unenriched\n", f)
		}
		fmt.Fprintln(stdout, report)
	}
	if err != nil {
		fmt.Fprintf(stderr, prog+": %v\n", err)
		return exitDiags
	}
	if len(report.Failed) > 0 {
		return exitDiags
	}
	return exitOK
}

// catalogTools is what the model is told of each catalog tool: the same
// name, description and parameters that the stored hash covers (and that
// generate checks it against).
func catalogTools(spec *ir.Spec, goTools *templates.GoTools) []enrich.Tool {
	out := make([]enrich.Tool, 0, len(spec.Catalog))
	for _, t := range spec.Catalog {
		out = append(out, enrich.Tool{Name: t.Name, Description: t.Description, Params: goTools.CatalogParams(t)})
	}
	return out
}
