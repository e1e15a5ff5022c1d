// The status page: /api/status for the picture, /api/events (server-sent
// events) for what changes, /api/find for ranking. Everything a server or
// a tool says is put in the page as text, never as HTML.
"use strict";

const state = {
  status: null,       // the last /api/status
  statusText: "",     // its JSON, to skip redrawing what did not change
  outputsText: "",
  selected: "",       // the tool whose detail is shown
  query: "",
  hits: null,         // /api/find results for query, or null
  viewer: null,       // {handle, offset, back: [offsets]}
};

const $ = (id) => document.getElementById(id);

// el builds an element; children are nodes or strings (text).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

async function getJSON(url, init) {
  const r = await fetch(url, init);
  let body = null;
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) throw new Error((body && body.error) || `${r.status} ${r.statusText}`);
  return body;
}

// debounce runs fn once, wait ms after the last call.
function debounce(fn, wait) {
  let t = 0;
  return (...args) => { clearTimeout(t); t = setTimeout(() => fn(...args), wait); };
}

function clock(iso) {
  const d = new Date(iso);
  const p = (n, w = 2) => String(n).padStart(w, "0");
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

// plural is "1 tool", "2 tools".
function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1 << 20)).toFixed(1)} MiB`;
}

const healthWords = { green: "up", yellow: "slow", red: "down" };

// ---- status: agents, servers, tools ----

async function refreshStatus() {
  let st;
  try {
    st = await getJSON("/api/status");
  } catch (e) {
    $("summary").textContent = `status unavailable: ${e.message}`;
    return;
  }
  refreshOutputs();
  // Redraw only what changed: a list redrawn under the pointer loses the click.
  const text = JSON.stringify(st);
  if (text === state.statusText) return;
  state.status = st;
  state.statusText = text;
  renderStatus();
}
const refreshStatusSoon = debounce(refreshStatus, 150);

function renderStatus() {
  const st = state.status;
  document.title = `${st.agent} · toolgen`;
  $("agent-name").textContent = st.agent;
  const up = st.servers.filter((s) => s.health !== "red").length;
  $("summary").textContent = st.servers.length
    ? `${plural(st.tools.length, "tool")} · ${up} of ${plural(st.servers.length, "server")} up`
    : plural(st.tools.length, "tool");
  renderAgents(st);
  renderServers(st);
  renderFleet(st);
  renderTools();
  document.body.dataset.loading = "false";
  document.querySelector("main").removeAttribute("aria-busy");
}

function renderAgents(st) {
  const list = $("agent-list");
  list.replaceChildren(...st.agents.map((a) => {
    const current = a.name === st.agent;
    return el("li", { "data-agent": a.name, "data-current": current ? "true" : "false" },
      el("div", { class: "grow" },
        el("div", { class: "name" }, a.name),
        a.description ? el("div", { class: "sub" }, a.description) : null),
      current
        ? el("span", { class: "badge current" }, "current")
        : el("button", { type: "button", onclick: () => switchTo(a.name) }, "Switch"));
  }));
}

async function switchTo(name) {
  const note = $("switch-note");
  for (const b of $("agent-list").querySelectorAll("button")) b.disabled = true;
  note.hidden = false;
  note.className = "note";
  note.textContent = `Switching to ${name}… calls in flight get up to 5 s to finish.`;
  try {
    await getJSON("/api/switch", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ agent: name }),
    });
    note.hidden = true;
  } catch (e) {
    note.className = "note error";
    note.textContent = `Could not switch to ${name}: ${e.message}`;
  }
  state.selected = "";
  await refreshStatus();
  if (state.status) renderStatus(); // the buttons again, even when nothing changed
}

function renderServers(st) {
  $("no-servers").hidden = st.servers.length > 0;
  $("server-list").replaceChildren(...st.servers.map((s) =>
    el("li", { "data-server": s.name, "data-health": s.health },
      el("span", { class: `dot ${s.health}`, title: s.health }),
      el("div", { class: "grow" },
        el("div", {}, el("span", { class: "name" }, s.name), " ",
          el("span", { class: "sub" }, `${s.transport} · ${plural(s.tools, "tool")}`)),
        s.error ? el("div", { class: "reason" }, s.error) : null),
      el("span", { class: `health ${s.health}` }, `${s.health} · ${healthWords[s.health] || s.health}`))));
}

// ---- the fleet: replicas sharing a store, and their recent calls ----

const fleetEvery = 5000; // the replicas' own heartbeat

function renderFleet(st) {
  const f = st.fleet;
  $("fleet").hidden = !f;
  if (!f) return;
  // Other replicas' calls reach this page through the store, not its
  // event stream: read the status again now and then.
  if (!state.fleetTimer) state.fleetTimer = setInterval(refreshStatus, fleetEvery);
  $("replica-count").textContent = `${f.replicas.length}`;
  $("fleet-error").hidden = !f.error;
  $("fleet-error").textContent = f.error ? `The store ${f.store} could not be read: ${f.error}` : "";
  const worst = (ss) => ss.some((s) => s.health === "red") ? "red" : ss.some((s) => s.health === "yellow") ? "yellow" : "green";
  $("replica-list").replaceChildren(...f.replicas.map((r) => {
    const health = worst(r.servers);
    const up = r.servers.filter((s) => s.health !== "red").length;
    return el("li", { "data-replica": r.id, "data-health": health, "data-this": r.id === f.replica ? "true" : "false" },
      el("span", { class: `dot ${health}`, title: health }),
      el("div", { class: "grow" },
        el("div", {}, el("span", { class: "name" }, r.id), " ",
          el("span", { class: "sub" }, r.id === f.replica ? "this replica · " : "", `up since ${clock(r.started)}`)),
        el("div", { class: "sub" }, r.servers.length
          ? `${up} of ${plural(r.servers.length, "server")} up` + r.servers.filter((s) => s.health !== "green").map((s) => ` · ${s.name} ${s.health}`).join("")
          : "no MCP servers")),
      el("span", { class: `health ${health}` }, `${health} · ${healthWords[health]}`));
  }));
  $("fleet-call-list").replaceChildren(...f.calls.slice().reverse().map((c) => {
    const a = c.attrs || {};
    const status = c.event === "tool.blocked" ? "blocked" : (a.status || "");
    return el("tr", { "data-replica": c.replica, "data-tool": a.tool || "", "data-status": status },
      el("td", { class: "time" }, clock(c.time)),
      el("td", {}, c.replica),
      el("td", {}, a.tool || ""),
      el("td", { class: `status-${status}`, title: a.error || a.reason || "" }, status),
      el("td", { class: "num" }, a.latency_ms !== undefined ? `${Number(a.latency_ms).toFixed(1)} ms` : ""));
  }));
}

// ---- tools: search (ranked by the agent's tool_find) and detail ----

function renderTools() {
  const st = state.status;
  if (!st) return;
  $("tool-count").textContent = `${st.tools.length}`;
  const rows = state.hits
    ? state.hits.map((h) => ({ name: h.name, note: h.active ? "" : "loadable", score: h.score }))
    : st.tools.map((t) => ({ name: t.name, note: t.kind }));
  const list = $("tool-list");
  list.replaceChildren(...rows.map((r) =>
    el("li", { "data-tool": r.name, class: r.name === state.selected ? "selected" : "", onclick: () => selectTool(r.name) },
      el("span", { class: "tname" }, r.name),
      r.score !== undefined ? el("span", { class: "score" }, r.score.toFixed(2)) : null,
      r.note ? el("span", { class: "badge" }, r.note) : null)));
  if (state.hits && rows.length === 0) list.append(el("li", { class: "empty" }, "No tool matches."));
  renderDetail();
}

const search = debounce(async () => {
  const q = $("tool-search").value.trim();
  state.query = q;
  if (!q) {
    state.hits = null;
    renderTools();
    return;
  }
  try {
    const res = await getJSON(`/api/find?q=${encodeURIComponent(q)}&limit=20`);
    if (state.query !== q) return; // a newer query is on its way
    state.hits = res.results;
  } catch (e) {
    state.hits = [];
  }
  renderTools();
}, 120);

function selectTool(name) {
  state.selected = name;
  for (const li of $("tool-list").children) li.classList.toggle("selected", li.dataset.tool === name);
  renderDetail();
}

function renderDetail() {
  const box = $("tool-detail");
  const name = state.selected;
  if (!name) {
    box.replaceChildren(el("p", { class: "empty" }, "Pick a tool to see its parameters and why the agent has it."));
    return;
  }
  const t = state.status.tools.find((x) => x.name === name);
  if (!t) {
    const h = (state.hits || []).find((x) => x.name === name);
    box.replaceChildren(el("h3", {}, name),
      h && h.description ? el("p", {}, h.description) : null,
      el("p", { class: "why" }, "Loadable: the agent calls tool_load to add it to its tools."));
    return;
  }
  box.replaceChildren(
    el("h3", { "data-detail": t.name }, t.name),
    el("p", { class: "sub" }, [t.kind, t.namespace].filter(Boolean).join(" · ")),
    t.description ? el("p", { class: "desc" }, t.description) : null,
    el("p", { class: "why", "data-reason": "" }, el("strong", {}, "Why: "), t.reason || "—"),
    paramTable(t.input_schema),
    el("details", {}, el("summary", {}, "Input schema"), el("pre", { "data-schema": "" }, JSON.stringify(t.input_schema, null, 2))));
}

function paramTable(schema) {
  const props = (schema && schema.properties) || {};
  const names = Object.keys(props);
  if (names.length === 0) return el("p", { class: "sub" }, "No parameters.");
  const req = new Set((schema && schema.required) || []);
  const type = (p) => Array.isArray(p.type) ? p.type.join(" | ") : (p.type || (p.enum ? "enum" : "any"));
  return el("table", { class: "params" },
    el("tbody", {}, ...names.map((n) => {
      const p = props[n] || {};
      return el("tr", {},
        el("td", {}, n),
        el("td", { class: "sub" }, type(p) + (req.has(n) ? ", required" : "")),
        el("td", {}, p.description || (p.enum ? `one of ${p.enum.join(", ")}` : "")));
    })));
}

// ---- live events: the log, recent calls ----

const maxEvents = 500;
const maxCalls = 50;

function attrText(attrs) {
  const span = el("span", { class: "attrs" });
  for (const [k, v] of Object.entries(attrs || {})) {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    span.append(`${k}=`, el("span", { class: "v" }, text.length > 300 ? text.slice(0, 300) + "…" : text), "  ");
  }
  return span;
}

function addEvent(ev) {
  const list = $("event-list");
  list.prepend(el("li", { class: ev.level, "data-event": ev.event },
    el("span", { class: "time" }, clock(ev.time)),
    el("span", { class: `lvl ${ev.level}` }, ev.level.toLowerCase()),
    el("span", { class: "ev" }, ev.event),
    attrText(ev.attrs)));
  while (list.children.length > maxEvents) list.lastChild.remove();

  if (ev.event === "tool.call" || ev.event === "tool.blocked") addCall(ev);
  if (ev.event === "tool.call") refreshOutputsSoon();
  if (/^(agent|server|lock)\./.test(ev.event) || ev.event === "tool.collision") refreshStatusSoon();
}

function addCall(ev) {
  const a = ev.attrs || {};
  const status = ev.event === "tool.blocked" ? "blocked" : (a.status || "");
  const io = a.chars_in !== undefined ? `${a.chars_in} / ${a.chars_out}` : "";
  const lat = a.latency_ms !== undefined ? `${Number(a.latency_ms).toFixed(1)} ms` : "";
  const tbody = $("call-list");
  tbody.prepend(el("tr", { "data-tool": a.tool || "", "data-status": status },
    el("td", { class: "time" }, clock(ev.time)),
    el("td", {}, a.tool || ""),
    el("td", { class: `status-${status}`, title: a.error || a.reason || "" }, status),
    el("td", { class: "num" }, lat),
    el("td", { class: "num" }, io)));
  while (tbody.children.length > maxCalls) tbody.lastChild.remove();
  $("no-calls").hidden = true;
}

function connect() {
  const conn = $("conn");
  const es = new EventSource("/api/events");
  es.onopen = () => {
    conn.dataset.state = "live";
    $("conn-text").textContent = "live";
    refreshStatus(); // catch up on what changed while away
  };
  es.onerror = () => {
    conn.dataset.state = "reconnecting";
    $("conn-text").textContent = "reconnecting";
  };
  es.onmessage = (m) => {
    try { addEvent(JSON.parse(m.data)); } catch (_) { /* skip a bad line */ }
  };
  es.addEventListener("gap", (m) => {
    const n = JSON.parse(m.data).missed;
    addEvent({ time: new Date().toISOString(), level: "WARN", event: "log.gap", attrs: { missed: n, reason: "the page fell behind; these events are not shown" } });
  });
}

// ---- spilled outputs ----

async function refreshOutputs() {
  let res;
  try { res = await getJSON("/api/outputs"); } catch (_) { return; }
  const outs = res.outputs;
  const text = JSON.stringify(outs);
  if (text === state.outputsText) return;
  state.outputsText = text;
  $("no-outputs").hidden = outs.length > 0;
  $("output-list").replaceChildren(...outs.map((o) =>
    el("li", { "data-handle": o.handle },
      el("code", { class: "grow" }, o.handle),
      el("span", { class: "sub" }, bytes(o.bytes)),
      el("button", { type: "button", onclick: () => openOutput(o.handle, 0, []) }, "Open"))));
  if (state.viewer && !outs.some((o) => o.handle === state.viewer.handle)) closeViewer();
}
const refreshOutputsSoon = debounce(refreshOutputs, 200);

const pageBytes = 4096;

async function openOutput(handle, offset, back) {
  let p;
  try {
    p = await getJSON(`/api/outputs/${handle.split("/").map(encodeURIComponent).join("/")}?offset=${offset}&limit=${pageBytes}`);
  } catch (e) {
    $("viewer").hidden = false;
    $("viewer-handle").textContent = handle;
    $("viewer-range").textContent = e.message;
    $("viewer-text").textContent = "";
    return;
  }
  state.viewer = { handle, offset, next: p.next_offset, eof: p.eof, back };
  $("viewer").hidden = false;
  $("viewer-handle").textContent = handle;
  $("viewer-range").textContent = `bytes ${p.offset}–${p.next_offset} of ${p.total_bytes}`;
  $("viewer-text").textContent = p.content;
  $("viewer-prev").disabled = back.length === 0;
  $("viewer-next").disabled = p.eof;
}

function closeViewer() {
  state.viewer = null;
  $("viewer").hidden = true;
}

function init() {
  $("tool-search").addEventListener("input", search);
  $("show-debug").addEventListener("change", (e) => $("event-list").classList.toggle("hide-debug", !e.target.checked));
  $("viewer-next").addEventListener("click", () => {
    const v = state.viewer;
    if (v && !v.eof) openOutput(v.handle, v.next, [...v.back, v.offset]);
  });
  $("viewer-prev").addEventListener("click", () => {
    const v = state.viewer;
    if (v && v.back.length) openOutput(v.handle, v.back[v.back.length - 1], v.back.slice(0, -1));
  });
  $("viewer-close").addEventListener("click", closeViewer);
  refreshStatus();
  connect();
}

init();
