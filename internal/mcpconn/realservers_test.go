package mcpconn

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The real MCP reference servers from testdata/npm (installed by `make npm`).

func TestServerEverythingStdio(t *testing.T) {
	bin := npmBin(t)
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{
		Name:           "everything",
		Command:        filepath.Join(bin, "mcp-server-everything"),
		Args:           []string{"stdio"},
		Env:            nodeEnv(bin),
		StartupTimeout: 30 * time.Second,
		Logger:         rec.logger(),
	})
	defer c.Release()
	names := toolNames(c.Tools())
	for _, want := range []string{"echo", "get-sum"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if r := call(t, c, "echo", `{"message":"hi there"}`); !strings.Contains(r.Text(), "hi there") || r.IsError {
		t.Errorf("echo = %+v", r)
	}
	if r := call(t, c, "get-sum", `{"a":2,"b":40}`); !strings.Contains(r.Text(), "42") {
		t.Errorf("get-sum = %+v", r)
	}
	if r := call(t, c, "get-sum", `{"a":"two"}`); !r.IsError {
		t.Errorf("get-sum with bad args = %+v, want a tool error", r)
	}
	if c.Instructions() == "" {
		t.Log("server-everything sent no instructions")
	}
	for _, tl := range c.Tools() {
		if !strings.Contains(string(tl.InputSchema), `"type":"object"`) {
			t.Errorf("%s: schema %s", tl.Name, tl.InputSchema)
		}
	}
}

func TestServerFilesystemStdio(t *testing.T) {
	bin := npmBin(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, _ = filepath.EvalSymlinks(dir)
	rec := newRecorder()
	m := NewManager(nil)
	defer m.Close()
	c := acquire(t, m, Config{
		Name:           "fs",
		Command:        filepath.Join(bin, "mcp-server-filesystem"),
		Args:           []string{dir},
		Env:            nodeEnv(bin),
		StartupTimeout: 30 * time.Second,
		Logger:         rec.logger(),
	})
	defer c.Release()
	names := toolNames(c.Tools())
	for _, want := range []string{"read_text_file", "list_directory", "write_file"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if r := call(t, c, "read_text_file", fmt.Sprintf(`{"path":%q}`, filepath.Join(dir, "notes.txt"))); r.Text() != "alpha\nbeta\n" {
		t.Errorf("read_text_file = %+v", r)
	}
	if r := call(t, c, "read_text_file", `{"path":"/etc/passwd"}`); !r.IsError {
		t.Errorf("read outside the root = %+v, want a tool error", r)
	}
}

func TestServerEverythingNetwork(t *testing.T) {
	bin := npmBin(t)
	for _, tc := range []struct{ mode, transport, path string }{
		{"streamableHttp", TransportHTTP, "/mcp"},
		{"sse", TransportSSE, "/sse"},
	} {
		t.Run(tc.transport, func(t *testing.T) {
			port := freePort(t)
			cmd := exec.Command(filepath.Join(bin, "mcp-server-everything"), tc.mode)
			cmd.Env = append(os.Environ(), nodeEnv(bin)[0], fmt.Sprintf("PORT=%d", port))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				cmd.Process.Kill()
				cmd.Wait()
			}()
			rec := newRecorder()
			m := NewManager(nil)
			defer m.Close()
			cfg := Config{
				Name:           "everything-" + tc.transport,
				Transport:      tc.transport,
				URL:            fmt.Sprintf("http://127.0.0.1:%d%s", port, tc.path),
				StartupTimeout: 5 * time.Second,
				Logger:         rec.logger(),
			}
			// The server needs a moment to listen; retry the first Acquire.
			var c *Conn
			eventually(t, "server-everything listening", func() bool {
				var err error
				c, err = m.Acquire(context.Background(), cfg)
				return err == nil
			})
			defer c.Release()
			if r := call(t, c, "echo", `{"message":"over http"}`); !strings.Contains(r.Text(), "over http") {
				t.Errorf("echo = %+v", r)
			}
		})
	}
}
