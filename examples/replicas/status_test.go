package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolgen-dev/toolgen/runtime/store/redis/redistest"
)

// fleetStatus is the part of /api/status this test reads.
type fleetStatus struct {
	Servers []struct{ Name string }
	Fleet   *struct {
		Store    string
		Replica  string
		Replicas []struct {
			ID      string
			Servers []struct{ Name, Health string }
		}
		Calls []struct {
			Replica string
			Event   string
			Attrs   map[string]any
		}
		Error string
	}
}

func status(t *testing.T, addr string) fleetStatus {
	t.Helper()
	resp, err := client.Get("http://" + addr + "/api/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st fleetStatus
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/status on %s: HTTP %d", addr, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// replicaID is how a replica names itself in the fleet: HOST-PID.
func (r *replica) id() string { return fmt.Sprintf("-%d", r.cmd.Process.Pid) }

// Any replica's status page shows the whole fleet: calls made through r1
// and r2 show in r3's /api/status, and all three replicas are listed; one
// that stops leaves the list.
func TestFleetStatusShowsEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	f := startFleet(t, 3, nil, "--store", srv.URL())
	r1, r2, r3 := f.replicas[0], f.replicas[1], f.replicas[2]
	for _, r := range []*replica{r1, r2} {
		if res := callTool(r.addr, "echo", map[string]string{"text": "via " + r.name}); res.Err != nil || res.IsError {
			t.Fatalf("echo on %s: %+v", r.name, res)
		}
	}
	// The calls reach the store a moment after their answers.
	var st fleetStatus
	callsOf := func(r *replica) bool {
		return slices.ContainsFunc(st.Fleet.Calls, func(c struct {
			Replica string
			Event   string
			Attrs   map[string]any
		}) bool {
			return strings.HasSuffix(c.Replica, r.id()) && c.Event == "tool.call" && c.Attrs["tool"] == "echo"
		})
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st = status(t, r3.addr)
		if st.Fleet == nil {
			t.Fatal("r3's /api/status has no fleet, with --store")
		}
		if (callsOf(r1) && callsOf(r2)) || time.Now().After(deadline) {
			break
		}
	}
	if !callsOf(r1) || !callsOf(r2) || callsOf(r3) {
		t.Fatalf("r3 shows calls %+v; want r1's and r2's echo and none of its own", st.Fleet.Calls)
	}
	if st.Fleet.Error != "" || !strings.HasSuffix(st.Fleet.Replica, r3.id()) || !strings.HasPrefix(st.Fleet.Store, "redis://") {
		t.Fatalf("fleet: %+v", st.Fleet)
	}
	listed := func() (ids []string) {
		for _, r := range status(t, r3.addr).Fleet.Replicas {
			ids = append(ids, r.ID)
		}
		return ids
	}
	ids := listed()
	for _, r := range f.replicas {
		if !slices.ContainsFunc(ids, func(id string) bool { return strings.HasSuffix(id, r.id()) }) {
			t.Errorf("replica %s (pid %d) is not listed: %v", r.name, r.cmd.Process.Pid, ids)
		}
	}
	if len(ids) != 3 {
		t.Fatalf("listed %v; want the 3 replicas", ids)
	}
	// A replica that shuts down leaves the list at once.
	r1.stop()
	if ids := listed(); len(ids) != 2 || slices.ContainsFunc(ids, func(id string) bool { return strings.HasSuffix(id, r1.id()) }) {
		t.Fatalf("after r1 stopped, r3 lists %v", ids)
	}
}

// Without a store a replica is on its own: its status has no fleet.
func TestFleetStatusWithoutStore(t *testing.T) {
	f := startFleet(t, 1, nil)
	if st := status(t, f.replicas[0].addr); st.Fleet != nil {
		t.Fatalf("status without a store: %+v", st)
	}
}
