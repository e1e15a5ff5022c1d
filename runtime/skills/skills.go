// Package skills serves an agent's declared skills over MCP with the
// Skills extension (SEP-2640, io.modelcontextprotocol/skills): skills/list
// and skills/get answer each skill's frontmatter and the URI, size and
// SHA-256 digest of every file; the files themselves are the session's
// resources at skill://<skill>/<path> (runtime/internal/resources), and
// resources/directory/read lists a skill's directories.
//
// Generated code imports this package, for its init, only when the spec
// declares a skill; it registers the extension with runtime/serve.
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/frontmatter"
	"github.com/toolgen-dev/toolgen/internal/mcpconn"
	"github.com/toolgen-dev/toolgen/runtime/decl"
	"github.com/toolgen-dev/toolgen/runtime/serve"
)

// ExtensionID is the Skills extension's identifier in capabilities.
const ExtensionID = "io.modelcontextprotocol/skills"

// Method names of the extension.
const (
	MethodList          = "skills/list"
	MethodGet           = "skills/get"
	MethodDirectoryRead = "resources/directory/read"
)

// DirectoryMIMEType marks a directory in resources/directory/read.
const DirectoryMIMEType = "inode/directory"

// Source is a session with skills; *runtime.Session is one.
type Source interface {
	Skills(ctx context.Context) []*decl.Skill
}

// Entry is one skill as skills/list and skills/get send it.
type Entry struct {
	URI         string          `json:"uri"`         // of its SKILL.md
	Frontmatter json.RawMessage `json:"frontmatter"` // SKILL.md's frontmatter, verbatim, as JSON
	Resources   []File          `json:"resources"`   // every file, SKILL.md first
}

// File is one file of a skill entry.
type File struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"` // sha256:<hex>
	Size   int64  `json:"size"`
}

// ListParams are skills/list's parameters.
type ListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// ListResult is skills/list's result: every skill on one page, since a
// declared skill set is small and an entry is never split.
type ListResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string  `json:"resultType,omitempty"` // see typeFor
	Skills     []Entry `json:"skills"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// GetParams are skills/get's parameters.
type GetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

// GetResult is skills/get's result.
type GetResult struct {
	mcp.ResultBase
	mcp.Cacheable
	ResultType string `json:"resultType,omitempty"` // see typeFor
	Skill      Entry  `json:"skill"`
}

// DirectoryParams are resources/directory/read's parameters.
type DirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

// DirectoryResult lists a directory's direct children.
type DirectoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType,omitempty"` // see typeFor
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

// EntryOf is the entry of a declared skill.
func EntryOf(sk *decl.Skill) Entry {
	e := Entry{URI: sk.URI(), Frontmatter: sk.Frontmatter, Resources: make([]File, len(sk.Files))}
	for i := range sk.Files {
		f := &sk.Files[i]
		e.Resources[i] = File{URI: f.URI(sk.Path()), Digest: f.Digest, Size: f.Size}
	}
	return e
}

func init() {
	serve.RegisterExtension(extension{})
	// Upstream servers' skills are checked with the same YAML reading as
	// declared ones; agents without skills do not link it.
	mcpconn.RegisterFrontmatter(frontmatter.Compare)
}

type extension struct{}

// Options declares the extension, with directoryRead, for a session that
// has skills; their files need the resources capability, which serve
// declares for every session that offers resources.
func (extension) Options(sess serve.Session, opts *mcp.ServerOptions) bool {
	if _, ok := sess.(Source); !ok {
		return false
	}
	if opts.Capabilities == nil {
		opts.Capabilities = &mcp.ServerCapabilities{}
	}
	if opts.Capabilities.Resources == nil {
		opts.Capabilities.Resources = &mcp.ResourceCapabilities{}
	}
	opts.Capabilities.AddExtension(ExtensionID, map[string]any{"directoryRead": true})
	return true
}

// noCache: an agent's skills change with Switch and workflow steps.
var noCache = mcp.Cacheable{TTLMs: 0, CacheScope: "private"}

func (extension) Install(sess serve.Session, srv *mcp.Server) {
	src := sess.(Source)
	must(mcp.AddReceivingCustomMethod(srv, MethodList, func(ctx context.Context, ss *mcp.ServerSession, p *ListParams) (*ListResult, error) {
		if p != nil && p.Cursor != "" {
			return nil, invalidParams("skills/list has one page; the cursor %q is not one it gave", p.Cursor)
		}
		res := &ListResult{Cacheable: noCache, ResultType: typeFor(ss), Skills: []Entry{}}
		for _, sk := range src.Skills(ctx) {
			res.Skills = append(res.Skills, EntryOf(sk))
		}
		return res, nil
	}))
	must(mcp.AddReceivingCustomMethod(srv, MethodGet, func(ctx context.Context, ss *mcp.ServerSession, p *GetParams) (*GetResult, error) {
		if p == nil || p.URI == "" {
			return nil, invalidParams("skills/get needs the uri of a skill's SKILL.md")
		}
		for _, sk := range src.Skills(ctx) {
			if e := EntryOf(sk); e.URI == p.URI {
				return &GetResult{Cacheable: noCache, ResultType: typeFor(ss), Skill: e}, nil
			}
		}
		return nil, invalidParams("no skill is served at %q", p.URI)
	}))
	must(mcp.AddReceivingCustomMethod(srv, MethodDirectoryRead, func(ctx context.Context, ss *mcp.ServerSession, p *DirectoryParams) (*DirectoryResult, error) {
		if p == nil || p.URI == "" {
			return nil, invalidParams("resources/directory/read needs the uri of a directory")
		}
		if p.Cursor != "" {
			return nil, invalidParams("a directory is listed on one page; the cursor %q is not one it gave", p.Cursor)
		}
		children, ok := Directory(src.Skills(ctx), p.URI)
		if !ok {
			return nil, invalidParams("%q is not a directory of a skill served here", p.URI)
		}
		return &DirectoryResult{ResultType: typeFor(ss), Resources: children}, nil
	}))
}

// typeFor is the resultType of a result for ss's host: "complete" for a
// host of the stateless revision, whose schema requires it on every result
// (go-sdk sets it only on the results of its own methods, not on custom
// ones); empty, so left out, for older hosts.
func typeFor(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	if p := ss.InitializeParams(); p != nil && p.ProtocolVersion >= serve.StatelessRevision {
		return "complete"
	}
	return ""
}

// Directory lists the direct children of a directory in the skills' URI
// space: a skill's root (skill://<path>) or a subdirectory of it, files
// as resources and subdirectories with DirectoryMIMEType; or a directory
// above skills (skill://<server> of upstream skills), their next path
// segments. ok is false for any URI that is not such a directory.
func Directory(skills []*decl.Skill, uri string) (children []*mcp.Resource, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSuffix(uri, "/"), decl.SkillScheme)
	if !found || rest == "" {
		return nil, false
	}
	seen := map[string]bool{}
	add := func(r *mcp.Resource) {
		if !seen[r.URI] {
			seen[r.URI] = true
			children = append(children, r)
		}
	}
	dirRes := func(p string) *mcp.Resource {
		return &mcp.Resource{URI: decl.SkillScheme + p, Name: path.Base(p), MIMEType: DirectoryMIMEType}
	}
	for _, sk := range skills {
		p := sk.Path()
		prefix := ""
		switch {
		case rest == p:
		case strings.HasPrefix(rest, p+"/"):
			prefix = rest[len(p)+1:] + "/"
		case strings.HasPrefix(p, rest+"/"):
			first, _, _ := strings.Cut(p[len(rest)+1:], "/")
			ok = true
			add(dirRes(rest + "/" + first))
			continue
		default:
			continue
		}
		for j := range sk.Files {
			f := &sk.Files[j]
			sub, in := strings.CutPrefix(f.Path, prefix)
			if !in {
				continue
			}
			ok = true
			if first, _, nested := strings.Cut(sub, "/"); nested {
				add(dirRes(p + "/" + prefix + first))
				continue
			}
			add(&mcp.Resource{URI: f.URI(p), Name: path.Base(f.Path), MIMEType: f.MIMEType, Size: f.Size})
		}
	}
	slices.SortFunc(children, func(a, b *mcp.Resource) int { return strings.Compare(a.URI, b.URI) })
	return children, ok
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// must panics on a registration error, which only a method name that
// go-sdk made standard can cause: a bug to see at once.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
