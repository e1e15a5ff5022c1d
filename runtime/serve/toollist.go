package serve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"hash/maphash"
	"iter"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	toolgen "github.com/toolgen-dev/toolgen/runtime"
)

// The tools/list answer of a session, shared between sessions.
//
// Registering every tool on each client's go-sdk server (AddTool checks
// and re-encodes each input schema) cost ~31 MB per HTTP client of an
// agent listing 10,000 tools. Every session of an agent shows the same
// tools unless it loaded or switched, and those tools come from the pool's
// shared table, so the listed form of a tool (*mcp.Tool) is made once per
// process and a whole list once per distinct surface; a Server keeps a
// pointer to its current list and answers tools/list from it in its
// middleware. tools/call never needed go-sdk's tool set: the middleware
// sends every call to the session.

// listPageSize is the tools per tools/list page: go-sdk's default, which
// hosts saw before the lists were shared.
const listPageSize = mcp.DefaultPageSize

// sharedTool is one tool as listed, with what it was made from (to tell
// whether a session's tool of that name is still the same).
type sharedTool struct {
	src  toolgen.ToolInfo
	tool *mcp.Tool
	note string // what was wrong with the input schema, for a serve.schema warning
}

// toolList is one listing, sorted by name, names unique; read-only.
type toolList struct {
	entries []*sharedTool
	tools   []*mcp.Tool // entries' tools, the pages handed to go-sdk

	needy  bool // some tool needs a host capability (ToolInfo.Needs)
	hostMu sync.Mutex
	byHost map[toolgen.HostNeeds]*toolList // what a host that declared less is shown (forHost)
}

// toolCache interns tools by name and lists by their tools. Both hold weak
// pointers: a tool or list lives as long as some Server's list holds it.
var toolCache struct {
	tools sync.Map // name → weak.Pointer[sharedTool]
	mu    sync.Mutex
	lists map[uint64]weak.Pointer[toolList]
	seed  maphash.Seed
}

func init() {
	toolCache.lists = map[uint64]weak.Pointer[toolList]{}
	toolCache.seed = maphash.MakeSeed()
}

// sameTool reports whether a tool listed from src lists t.
func sameTool(src, t *toolgen.ToolInfo) bool {
	// Tools from the pool's shared table share their strings and slices,
	// so these comparisons mostly end at equal pointers.
	return src.Name == t.Name && src.Needs == t.Needs && src.Description == t.Description && bytes.Equal(src.InputSchema, t.InputSchema) &&
		src.Title == t.Title && bytes.Equal(src.OutputSchema, t.OutputSchema) &&
		(src.Annotations == t.Annotations || reflect.DeepEqual(src.Annotations, t.Annotations)) &&
		reflect.DeepEqual(src.Meta, t.Meta)
}

// internTool returns the shared listed form of t.
func internTool(t *toolgen.ToolInfo) *sharedTool {
	if w, ok := toolCache.tools.Load(t.Name); ok {
		if st := w.(weak.Pointer[sharedTool]).Value(); st != nil && sameTool(&st.src, t) {
			return st
		}
	}
	st := newSharedTool(t)
	// The newest form of a name wins; an older one stays with the lists
	// that hold it.
	toolCache.tools.Store(t.Name, weak.Make(st))
	runtime.AddCleanup(st, func(name string) {
		if w, ok := toolCache.tools.Load(name); ok && w.(weak.Pointer[sharedTool]).Value() == nil {
			toolCache.tools.CompareAndDelete(name, w)
		}
	}, t.Name)
	return st
}

func newSharedTool(t *toolgen.ToolInfo) *sharedTool {
	schema, note := normalizeSchema(t.InputSchema)
	tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema,
		Annotations: t.Annotations, Meta: t.Meta}
	if len(t.OutputSchema) > 0 {
		if json.Valid(t.OutputSchema) {
			tool.OutputSchema = t.OutputSchema
		} else if note == "" {
			note = "output schema is not JSON; left out"
		} else {
			note += "; output schema is not JSON; left out"
		}
	}
	return &sharedTool{src: *t, tool: tool, note: note}
}

// toolSeq is what a *runtime.Session offers besides Tools: its tools
// without a copy of them.
type toolSeq interface {
	ToolSeq() iter.Seq[*toolgen.ToolInfo]
}

// sessionTools walks sess's tools, without copying them where it can.
func sessionTools(sess Session) iter.Seq[*toolgen.ToolInfo] {
	if ts, ok := sess.(toolSeq); ok {
		return ts.ToolSeq()
	}
	return func(yield func(*toolgen.ToolInfo) bool) {
		tools := sess.Tools()
		for i := range tools {
			if !yield(&tools[i]) {
				return
			}
		}
	}
}

// listOf returns the shared list of tools (sorted by name; empty and
// repeated names are skipped).
func listOf(tools iter.Seq[*toolgen.ToolInfo]) *toolList {
	entries := make([]*sharedTool, 0, lastListLen.Load())
	var h maphash.Hash
	h.SetSeed(toolCache.seed)
	for t := range tools {
		if t.Name == "" || (len(entries) > 0 && entries[len(entries)-1].src.Name == t.Name) {
			continue
		}
		st := internTool(t)
		entries = append(entries, st)
		maphash.WriteComparable(&h, st)
	}
	if !slices.IsSortedFunc(entries, byName) {
		// Session.Tools is sorted; another Session may not be.
		slices.SortStableFunc(entries, byName)
		entries = slices.CompactFunc(entries, func(a, b *sharedTool) bool { return a.src.Name == b.src.Name })
		h.Reset()
		for _, st := range entries {
			maphash.WriteComparable(&h, st)
		}
	}
	lastListLen.Store(int64(len(entries)))
	key := h.Sum64()
	toolCache.mu.Lock()
	defer toolCache.mu.Unlock()
	if l := toolCache.lists[key].Value(); l != nil && slices.Equal(l.entries, entries) {
		return l
	}
	l := &toolList{entries: slices.Clip(entries), tools: make([]*mcp.Tool, len(entries))}
	for i, st := range entries {
		l.tools[i] = st.tool
		l.needy = l.needy || st.src.Needs != 0
	}
	toolCache.lists[key] = weak.Make(l)
	runtime.AddCleanup(l, func(key uint64) {
		toolCache.mu.Lock()
		if toolCache.lists[key].Value() == nil {
			delete(toolCache.lists, key)
		}
		toolCache.mu.Unlock()
	}, key)
	return l
}

// lastListLen is the length of the last list made: the next one (another
// client of the same agent) is most likely as long.
var lastListLen atomic.Int64

func byName(a, b *sharedTool) int { return strings.Compare(a.src.Name, b.src.Name) }

// has reports whether l lists exactly st.
func (l *toolList) has(st *sharedTool) bool {
	if l == nil {
		return false
	}
	i, ok := slices.BinarySearchFunc(l.entries, st.src.Name, func(e *sharedTool, name string) int {
		return strings.Compare(e.src.Name, name)
	})
	return ok && l.entries[i] == st
}

// lookup returns the tool l lists under name, or nil.
func (l *toolList) lookup(name string) *toolgen.ToolInfo {
	if l == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(l.entries, name, func(e *sharedTool, name string) int {
		return strings.Compare(e.src.Name, name)
	})
	if !ok {
		return nil
	}
	return &l.entries[i].src
}

// warnSchemas logs the schema problems of tools next lists that prev did
// not, as registering them did: once per tool a client is shown anew.
func warnSchemas(logger *slog.Logger, prev, next *toolList) {
	for _, st := range next.entries {
		if st.note != "" && !prev.has(st) {
			logger.Warn("serve.schema", "tool", st.src.Name, "problem", st.note)
		}
	}
}

// page answers one tools/list request from l: listPageSize tools after the
// cursor's name, and the cursor of the next page if there are more.
func (l *toolList) page(params *mcp.ListToolsParams) (*mcp.ListToolsResult, error) {
	start := 0
	if params != nil && params.Cursor != "" {
		last, ok := decodeListCursor(params.Cursor)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
		start, _ = slices.BinarySearchFunc(l.tools, last, func(t *mcp.Tool, name string) int {
			return strings.Compare(t.Name, name)
		})
		if start < len(l.tools) && l.tools[start].Name == last {
			start++
		}
	}
	end := min(start+listPageSize, len(l.tools))
	res := &mcp.ListToolsResult{Tools: l.tools[start:end:end]}
	if res.Tools == nil {
		res.Tools = []*mcp.Tool{} // "tools" is required: never null
	}
	if end < len(l.tools) {
		res.NextCursor = encodeListCursor(l.tools[end-1].Name)
	}
	return res, nil
}

// A cursor is the last name of the page before, so that a list changing
// between two pages neither repeats nor skips the tools that stay.
const cursorPrefix = "n:"

func encodeListCursor(last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + last))
}

func decodeListCursor(c string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !bytes.HasPrefix(b, []byte(cursorPrefix)) {
		return "", false
	}
	return string(b[len(cursorPrefix):]), true
}

// listChanged is a tool go-sdk holds only so that re-adding it sends
// notifications/tools/list_changed the way go-sdk always has (debounced,
// to every session of the server, 2026-07-28 listeners included). It is
// never listed or called: the middleware answers both methods.
var listChanged = &mcp.Tool{Name: "toolgen_list_changed", InputSchema: emptyObjectSchema}

func noCall(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return errorResult("not a tool"), nil
}

// listTools answers tools/list from the server's current list, less the
// tools the requesting host cannot use.
func (s *Server) listTools(ctx context.Context, req mcp.Request) (mcp.Result, error) {
	s.mu.Lock()
	l := s.list
	s.mu.Unlock()
	l = l.forHost(hostCan(req))
	var params *mcp.ListToolsParams
	if r, ok := req.(*mcp.ListToolsRequest); ok {
		params = r.Params
	}
	res, err := l.page(params)
	if err != nil {
		return nil, err
	}
	cacheHints(ctx, req, &res.Cacheable)
	return res, nil
}

// forHost is l less the tools that need a capability beyond can: l itself
// when every tool is anyone's (the usual case), else a list made once per
// capability set and kept on l, so the sessions sharing l share it too.
func (l *toolList) forHost(can toolgen.HostNeeds) *toolList {
	if l == nil || !l.needy {
		return l
	}
	l.hostMu.Lock()
	defer l.hostMu.Unlock()
	if f := l.byHost[can]; f != nil {
		return f
	}
	f := &toolList{}
	for _, st := range l.entries {
		if st.src.Needs&^can == 0 {
			f.entries = append(f.entries, st)
			f.tools = append(f.tools, st.tool)
		}
	}
	if len(f.entries) == len(l.entries) {
		f = l
	}
	if l.byHost == nil {
		l.byHost = map[toolgen.HostNeeds]*toolList{}
	}
	l.byHost[can] = f
	return f
}

// hostCan is what the host of req declared that an upstream tool may
// need (runtime.HostCan); nothing without a session.
func hostCan(req mcp.Request) toolgen.HostNeeds {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return 0
	}
	return toolgen.HostCan(ss)
}
