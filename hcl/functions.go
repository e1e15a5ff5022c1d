package hcl

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/toolgen-dev/toolgen/internal/filekind"
)

// evalContext offers the load-time functions: file() reads inside the spec
// directory. env() is not here on purpose: it is read from the syntax tree
// where it is allowed and becomes a run-time lookup.
func evalContext(fsys fs.FS) *hcl.EvalContext {
	return &hcl.EvalContext{
		Functions: map[string]function.Function{
			"file": fileFunc(fsys),
			"env":  envMisplacedFunc,
		},
	}
}

func fileFunc(fsys fs.FS) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a file relative to the spec directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := filepath.ToSlash(args[0].AsString())
			clean := path.Clean(p)
			if !fs.ValidPath(clean) || p == "" {
				return cty.NilVal, function.NewArgErrorf(0, "%q is outside the spec directory; file() reads paths relative to it, without \"..\"", p)
			}
			b, err := readRegular(fsys, clean, maxSpecFileBytes)
			var nr *NotRegularError
			var tl *TooLargeError
			switch {
			case isEscape(err):
				return cty.NilVal, function.NewArgErrorf(0, "%q leads outside the spec directory through a symlink; file() reads only files inside it", p)
			case errors.As(err, &nr):
				return cty.NilVal, function.NewArgErrorf(0, "%q is %s; file() reads only regular files, so that reading can neither block nor go on without end", p, filekind.Of(nr.Mode))
			case errors.As(err, &tl):
				return cty.NilVal, function.NewArgErrorf(0, "%q is larger than %s, the most file() reads", p, sizeName(tl.Limit))
			case err != nil:
				return cty.NilVal, function.NewArgErrorf(0, "cannot read %q: %s", p, unwrapPathErr(err))
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

// isEscape reports the error os.Root gives for a path that a symlink leads
// out of the root; os does not export it, so it is matched by its text.
func isEscape(err error) bool {
	return err != nil && unwrapPathErr(err).Error() == "path escapes from parent"
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// envMisplacedFunc explains where env() may be used instead of the generic
// "no function named env".
var envMisplacedFunc = function.New(&function.Spec{
	Params:   []function.Parameter{{Name: "name", Type: cty.String}},
	VarParam: &function.Parameter{Name: "default", Type: cty.String},
	Type:     function.StaticReturnType(cty.String),
	Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
		return cty.NilVal, function.NewArgErrorf(0, "env() is read when the agent binary runs, so it is only allowed in the values of server env, url, headers and auth, rest url and headers, and model name, base_url, api_key and headers")
	},
})
