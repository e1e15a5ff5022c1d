package main_test

// The skills binary end to end: built from examples/skills, served over
// stdio to a go-sdk client that speaks the Skills extension, and run on
// modeltest (a real HTTP server on loopback speaking the OpenAI wire
// format).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolgen-dev/toolgen/internal/model/modeltest"
	"github.com/toolgen-dev/toolgen/internal/testbin"
	"github.com/toolgen-dev/toolgen/runtime/skills"
)

// hang bounds waits that only catch hangs; no assertion is tighter.
const hang = 60 * time.Second

var (
	bin  string // the built binary
	root string // the repository root: the binary's working directory
)

func TestMain(m *testing.M) { os.Exit(testbin.Main(m, "skills-agent", &bin, &root)) }

const skillDir = "examples/skills/spec/skills/release-notes"

// connect serves the binary over stdio to a go-sdk client that can send
// the Skills extension's methods.
func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	t.Cleanup(cancel)
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*skills.ListParams, *skills.ListResult](c, skills.MethodList); err != nil {
		t.Fatal(err)
	}
	if err := mcp.AddSendingCustomMethod[*skills.GetParams, *skills.GetResult](c, skills.MethodGet); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Dir, cmd.Env = root, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TOOLGEN_LOG=warn"}
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sha256sum is the digest the coreutils tool prints for a file, in
// SEP-2640's form.
func sha256sum(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("sha256sum", path).Output()
	if err != nil {
		t.Fatalf("sha256sum %s: %v", path, err)
	}
	return "sha256:" + strings.Fields(string(out))[0]
}

func TestServedDigestsAreSha256sum(t *testing.T) {
	cs := connect(t)
	ctx := context.Background()
	if _, ok := cs.InitializeResult().Capabilities.Extensions[skills.ExtensionID]; !ok {
		t.Fatalf("the extension is not declared: %+v", cs.InitializeResult().Capabilities.Extensions)
	}
	list, err := mcp.CallCustomMethod[*skills.ListParams, *skills.ListResult](ctx, cs, skills.MethodList, &skills.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Skills) != 1 || list.Skills[0].URI != "skill://release-notes/SKILL.md" {
		t.Fatalf("skills/list = %+v", list.Skills)
	}
	e := list.Skills[0]
	var fm map[string]any
	if err := json.Unmarshal(e.Frontmatter, &fm); err != nil || fm["name"] != "release-notes" || fm["license"] != "MIT" {
		t.Errorf("frontmatter = %s (%v)", e.Frontmatter, err)
	}
	want := map[string]string{
		"skill://release-notes/SKILL.md":            "SKILL.md",
		"skill://release-notes/references/STYLE.md": "references/STYLE.md",
	}
	if len(e.Resources) != len(want) {
		t.Fatalf("resources = %+v, want %d files", e.Resources, len(want))
	}
	for _, f := range e.Resources {
		path := filepath.Join(root, skillDir, want[f.URI])
		if d := sha256sum(t, path); f.Digest != d {
			t.Errorf("%s: served digest %s, sha256sum says %s", f.URI, f.Digest, d)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if f.Size != int64(len(data)) {
			t.Errorf("%s: size %d, file has %d bytes", f.URI, f.Size, len(data))
		}
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: f.URI})
		if err != nil {
			t.Fatalf("read %s: %v", f.URI, err)
		}
		if got := res.Contents[0].Text; got != string(data) {
			t.Errorf("%s read %q, want the file's bytes", f.URI, got)
		}
	}
	got, err := mcp.CallCustomMethod[*skills.GetParams, *skills.GetResult](ctx, cs, skills.MethodGet, &skills.GetParams{URI: e.URI})
	if err != nil || got.Skill.URI != e.URI || len(got.Skill.Resources) != 2 {
		t.Errorf("skills/get = %+v, %v", got, err)
	}
	if _, err := mcp.CallCustomMethod[*skills.GetParams, *skills.GetResult](ctx, cs, skills.MethodGet, &skills.GetParams{URI: "skill://nope/SKILL.md"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "no skill") {
		t.Errorf("skills/get of an unknown skill: %v, want invalid params", err)
	}
}

// TestRunLoadsSkillOnlyWhenAsked: the model is told the skill's name and
// description; SKILL.md reaches it only as the answer to its skill_load.
func TestRunLoadsSkillOnlyWhenAsked(t *testing.T) {
	body, err := os.ReadFile(filepath.Join(root, skillDir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	const bodyLine = "Sort each entry under one heading"
	if !bytes.Contains(body, []byte(bodyLine)) {
		t.Fatalf("SKILL.md no longer has %q", bodyLine)
	}
	const description = "Write release notes from a change log"
	srv := modeltest.NewServer(t)
	srv.Respond(func(req *modeltest.Request) modeltest.Turn {
		var results []modeltest.Result
		if n := len(req.Messages); n > 0 {
			results = req.Messages[n-1].Results
		}
		switch {
		case len(results) == 0:
			return modeltest.Turn{ToolCalls: []modeltest.Call{{Name: "skill_load", Args: `{"name":"release-notes"}`}}}
		case strings.Contains(results[0].Text, bodyLine) && strings.Contains(results[0].Text, "references/STYLE.md"):
			return modeltest.Turn{Text: "## Fixed\n- the parser no longer hangs (#41)"}
		}
		return modeltest.Turn{Text: "no skill: " + results[0].Text}
	})
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--json", "Write release notes for CHANGES.md")
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TOOLGEN_LOG=warn",
		"OPENAI_BASE_URL=" + srv.OpenAIBaseURL(), "OPENAI_API_KEY=sk-test"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var res struct{ Answer, Status string }
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil || !strings.HasPrefix(res.Answer, "## Fixed") {
		t.Fatalf("answer %q (%v); stdout %s", res.Answer, err, stdout.String())
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	first := reqs[0]
	if !strings.Contains(first.System, description) {
		t.Errorf("the first request's system prompt lacks the skill's description:\n%s", first.System)
	}
	if bytes.Contains(first.Body, []byte(bodyLine)) {
		t.Errorf("the first request already carries SKILL.md's body:\n%s", first.Body)
	}
	hasTool := false
	for _, tl := range first.Tools {
		hasTool = hasTool || tl.Name == "skill_load"
	}
	if !hasTool {
		t.Errorf("skill_load is not offered: %+v", first.Tools)
	}
	if !bytes.Contains(reqs[1].Body, []byte(bodyLine)) {
		t.Errorf("the request after skill_load lacks SKILL.md's body")
	}
}

// TestStatusPageListsSkills: serve --http's status page names the agent's
// skills and why it has them.
func TestStatusPageListsSkills(t *testing.T) {
	sk := statusSkills(t, bin)
	if len(sk) != 1 || sk[0].Name != "release-notes" || sk[0].Reason != "tools.use[1] skill.release-notes" ||
		!strings.HasPrefix(sk[0].Description, "Write release notes") {
		t.Errorf("status skills = %+v", sk)
	}
}

type statusSkill struct{ Name, Description, URI, Reason string }

// statusSkills runs agent binary bin with serve --http and returns the
// skills its /api/status lists.
func statusSkills(t *testing.T, bin string) []statusSkill {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--http", "127.0.0.1:0")
	cmd.Dir, cmd.Env = root, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TOOLGEN_LOG=warn"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), " on "); ok && strings.HasPrefix(sc.Text(), "serving agent") {
			url = strings.TrimSuffix(u, "/mcp")
		}
	}
	if url == "" {
		t.Fatal("the binary did not say where it serves")
	}
	go io.Copy(io.Discard, stderr)
	resp, err := http.Get(url + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct{ Skills []statusSkill }
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st.Skills
}

// A host of the stateless revision (2026-07-28) over HTTP: server/discover
// advertises the Skills extension, and skills/list, skills/get and
// resources/directory/read answer with resultType "complete", which that
// revision's schema requires on every result (the conformance suite's
// sep-2640-skills-* scenarios check both).
func TestStatelessRevisionServesSkills(t *testing.T) {
	// Both HTTP modes: sessions (2026-07-28 requests share one agent
	// session) and --stateless (one agent session per request).
	for _, mode := range []string{"sessions", "stateless"} {
		t.Run(mode, func(t *testing.T) { servesSkills(t, mode == "stateless") })
	}
}

func servesSkills(t *testing.T, stateless bool) {
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	args := []string{"serve", "--http", "127.0.0.1:0"}
	if stateless {
		args = append(args, "--stateless")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = root, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "TOOLGEN_LOG=warn"}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	sc := bufio.NewScanner(stderr)
	url := ""
	for url == "" && sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), " on "); ok && strings.HasPrefix(sc.Text(), "serving agent") {
			url = u
		}
	}
	if url == "" {
		t.Fatal("the binary did not say where it serves")
	}
	go io.Copy(io.Discard, stderr)

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`
	call := func(method, params string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta + `}}`
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		// One JSON-RPC response, as JSON or as one SSE data line.
		for _, line := range strings.Split(string(b), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				b = []byte(d)
			}
		}
		var msg struct {
			Result map[string]any
			Error  any
		}
		if err := json.Unmarshal(bytes.TrimSpace(b), &msg); err != nil || msg.Result == nil {
			t.Fatalf("%s: status %d, body %s (error %v)", method, resp.StatusCode, b, err)
		}
		if msg.Result["resultType"] != "complete" {
			t.Errorf("%s: resultType = %v, want complete", method, msg.Result["resultType"])
		}
		return msg.Result
	}

	caps, _ := call("server/discover", "")["capabilities"].(map[string]any)
	exts, _ := caps["extensions"].(map[string]any)
	if _, ok := exts[skills.ExtensionID]; !ok {
		t.Errorf("server/discover capabilities = %v, want the %s extension", caps, skills.ExtensionID)
	}
	if list, _ := call(skills.MethodList, "")["skills"].([]any); len(list) != 1 {
		t.Errorf("skills/list skills = %v, want one", list)
	}
	const uri = "skill://release-notes/SKILL.md"
	if e, _ := call(skills.MethodGet, `"uri":"`+uri+`",`)["skill"].(map[string]any); e["uri"] != uri {
		t.Errorf("skills/get skill = %v", e)
	}
	if rs, _ := call(skills.MethodDirectoryRead, `"uri":"skill://release-notes",`)["resources"].([]any); len(rs) == 0 {
		t.Error("resources/directory/read listed nothing")
	}
}
