// mnemex viewer: plain JavaScript, no build step, no network beyond this page's own API.
// Every stored text is put in the page with textContent (never as HTML).
"use strict";

const API = "/viewer/api";
const CSRF = document.querySelector('meta[name="mnemex-csrf"]').content;
const $ = (sel) => document.querySelector(sel);
const state = { results: [], active: -1, current: null, overview: null, view: "memories" };
const PALETTE = ["#0b5cad", "#c2410c", "#1a6b32", "#7c3aed", "#a4161a", "#0e7490", "#7a4b00", "#be185d",
                 "#4d7c0f", "#1e3a8a", "#6b7280", "#9d174d"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;  // CSSOM: allowed by the page's CSP, a style attribute is not
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false)
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
const svgEl = (tag, attrs, ...children) => {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
};
const short = (id) => (id || "").slice(0, 8);
const day = (iso) => (iso || "").slice(0, 10);
const when = (iso) => (iso ? iso.replace("T", " ").slice(0, 16) : "–");

function say(text, error) {
  const s = $("#status");
  s.textContent = text || "";
  s.classList.toggle("error", !!error);
}

async function api(path, options) {
  let res;
  try {
    res = await fetch(API + path, { credentials: "same-origin", ...options });
  } catch (e) {  // the daemon stopped (idle exit, `mnemex daemon stop`): a new one has a new port and key
    throw new Error("the mnemex daemon is not answering: run `mnemex viewer` again for a fresh link");
  }
  let body = {};
  try { body = await res.json(); } catch (e) { /* an empty or non-JSON answer */ }
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}
const post = (path, body) => api(path, {
  method: "POST", headers: { "Content-Type": "application/json", "X-Mnemex-Csrf": CSRF },
  body: JSON.stringify(body || {}),
});

function filterParams(withQuery) {
  const p = new URLSearchParams();
  for (const [k, v] of new FormData($("#filters"))) if (v && (withQuery || k !== "q")) p.append(k, v);
  return p;
}

// ------------------------------------------------------------------ overview
async function loadOverview() {
  const o = await api("/overview");
  state.overview = o;
  const fill = (sel, values, keepFirst) => {
    const s = $(sel);
    if (!keepFirst) s.textContent = "";
    for (const v of values) s.append(el("option", { value: v }, v));
  };
  fill("#f-project", o.projects, true);
  fill("#f-kind", o.kinds, true);
  fill("#f-scope", o.scopes, true);
  fill("#f-tier", o.tiers, true);
  fill("#f-status", o.statuses, false);
}

// ------------------------------------------------------------------ memories
function badges(m) {
  return [
    el("span", { class: "badge" }, m.kind),
    el("span", { class: "badge" }, m.scope),
    el("span", { class: "badge" }, `tier ${m.tier}`),
    m.pinned && el("span", { class: "badge pinned" }, "pinned"),
    m.dormant && el("span", { class: "badge dormant" }, "dormant"),
    m.status && m.status !== "active" && el("span", { class: `badge ${m.status}` }, m.status),
    el("span", {}, day(m.created_at)),
    el("span", {}, short(m.id)),
  ];
}

async function search() {
  const params = filterParams(true);
  say("Searching…");
  try {
    const r = await api("/search?" + params.toString());
    state.results = r.results;
    state.active = -1;
    renderResults(r);
    say(r.query ? `${r.count} result(s) for “${r.query}”` : `${r.count} most recent memories`);
    if (state.view === "timeline") renderTimeline(r.results);
  } catch (e) { say(e.message, true); }
}

function renderResults(r) {
  const list = $("#results");
  list.textContent = "";
  $("#results-title").textContent = r.query ? `Results for “${r.query}”` : "Newest memories";
  r.results.forEach((m, i) => {
    list.append(el("li", { "data-index": i },
      el("button", { class: "row", type: "button", "data-id": m.id, onclick: () => select(i) },
        el("span", { class: "preview" }, m.preview),
        el("span", { class: "meta" }, badges(m)),
        r.query ? el("span", { class: "why" },
          `why: ${m.why} · confidence ${(m.confidence * 100).toFixed(0)}%` + (m.outdated_by ? ` · possibly outdated by ${short(m.outdated_by)}` : "")) : null)));
  });
  if (!r.results.length) list.append(el("li", {}, el("p", { class: "hint" }, "No memories match.")));
}

function select(i, focusDetail = true) {
  if (i < 0 || i >= state.results.length) return;
  state.active = i;
  document.querySelectorAll("#results li").forEach((li) => li.classList.toggle("active", Number(li.dataset.index) === i));
  const row = document.querySelector(`#results li[data-index="${i}"] button`);
  if (row) row.focus();
  openMemory(state.results[i].id, focusDetail);
}

async function openMemory(id, focusDetail) {
  const d = $("#detail");
  d.hidden = false;
  d.textContent = "";
  d.append(el("p", {}, "Loading…"));
  try {
    const m = await api(`/memory/${encodeURIComponent(id)}`);
    state.current = m;
    renderDetail(m);
    if (focusDetail) d.focus();
  } catch (e) { d.textContent = ""; d.append(el("p", { class: "status error" }, e.message)); }
}

function renderDetail(m) {
  const d = $("#detail");
  d.textContent = "";
  d.append(
    el("h2", { id: "detail-title" }, `Memory ${short(m.id)}`),
    el("div", { class: "content", id: "detail-content" }, m.content),
    el("dl", { class: "props" },
      ...[["id", m.id], ["kind", m.kind], ["scope", m.scope], ["project", m.project || "–"], ["tier", m.tier],
          ["status", m.status + (m.lifecycle.dormant ? " (dormant)" : "")], ["pinned", m.pinned ? "yes" : "no"],
          ["tags", (m.tags || []).join(", ") || "–"], ["importance", m.importance], ["created", when(m.created_at)],
          ["valid until", when(m.valid_until)], ["recalled", `${m.access_count} time(s)`],
          ["source", `${m.provenance.source}${m.provenance.client ? " (" + m.provenance.client + ")" : ""}`],
          ["utility", `${m.lifecycle.utility.toFixed(2)} (${m.lifecycle.helped} helped, ${m.lifecycle.misled} misled)`]]
        .flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)])),
    actions(m),
    el("div", { id: "action-form" }),
    el("section", { "aria-labelledby": "h-history" }, el("h3", { id: "h-history" }, "History"), el("div", { id: "history" }, "Loading…")),
    el("section", { "aria-labelledby": "h-related" }, el("h3", { id: "h-related" }, "Relations"), el("div", { id: "related" }, "Loading…")),
    el("section", { "aria-labelledby": "h-around" }, el("h3", { id: "h-around" }, "Around it in time"), el("div", { id: "around" }, "Loading…")),
  );
  loadHistory(m.id);
  loadRelated(m.id);
  loadAround(m.id);
}

function actions(m) {
  const current = m.status === "active";
  return el("div", { class: "actions", role: "group", "aria-label": "Actions on this memory" },
    el("button", { type: "button", id: "act-edit", onclick: () => editForm(m), disabled: m.immutable }, "Edit"),
    m.pinned ? el("button", { type: "button", id: "act-unpin", onclick: () => act(m, "unpin") }, "Unpin")
             : el("button", { type: "button", id: "act-pin", onclick: () => act(m, "pin") }, "Pin"),
    current && el("button", { type: "button", id: "act-forget", onclick: () => forgetForm(m), disabled: m.pinned }, "Forget"),
    m.lifecycle.dormant && el("button", { type: "button", id: "act-restore", onclick: () => act(m, "restore") }, "Restore from dormant"),
    el("button", { type: "button", id: "act-purge", class: "danger", onclick: () => purgeForm(m) }, "Purge…"));
}

async function act(m, verb, body) {
  say(`${verb}…`);
  try {
    const r = await post(`/memory/${encodeURIComponent(m.id)}/${verb}`, body);
    say(r.action === "purged" ? `Purged ${short(r.id)}: removed everywhere.` : `${verb}: done (${short(m.id)}).`);
    if (r.action === "purged") { $("#detail").hidden = true; state.current = null; }
    await search();
    if (r.action !== "purged") await openMemory(m.id, false);
  } catch (e) { say(e.message, true); }
}

function editForm(m) {
  const box = $("#action-form");
  box.textContent = "";
  const kinds = (state.overview ? state.overview.kinds : [m.kind]).map((k) => el("option", { value: k, selected: k === m.kind }, k));
  const form = el("form", { class: "inline", id: "edit-form", "aria-label": "Edit memory" },
    el("label", { for: "edit-content" }, "Content"),
    el("textarea", { id: "edit-content", name: "content", required: true }, m.content),
    el("label", { for: "edit-kind" }, "Kind"), el("select", { id: "edit-kind", name: "kind" }, kinds),
    el("label", { for: "edit-tags" }, "Tags (comma-separated)"),
    el("input", { id: "edit-tags", name: "tags", value: (m.tags || []).join(", ") }),
    el("label", { for: "edit-importance" }, "Importance (0 to 1)"),
    el("input", { id: "edit-importance", name: "importance", type: "number", min: 0, max: 1, step: "any", value: m.importance }),
    el("div", { class: "actions" }, el("button", { type: "submit", class: "primary", id: "edit-save" }, "Save"),
      el("button", { type: "button", onclick: () => { box.textContent = ""; } }, "Cancel")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    act(m, "edit", { content: f.get("content"), kind: f.get("kind"), tags: f.get("tags"), importance: f.get("importance") });
  });
  box.append(form);
  $("#edit-content").focus();
}

function forgetForm(m) {
  const box = $("#action-form");
  box.textContent = "";
  const form = el("form", { class: "inline", "aria-label": "Forget memory" },
    el("p", {}, "Forgetting hides it from search; it stays in the timeline and its history."),
    el("label", { for: "forget-reason" }, "Why it no longer holds (optional)"),
    el("input", { id: "forget-reason", name: "reason", maxlength: 500 }),
    el("div", { class: "actions" }, el("button", { type: "submit", class: "primary", id: "forget-confirm" }, "Forget it"),
      el("button", { type: "button", onclick: () => { box.textContent = ""; } }, "Cancel")));
  form.addEventListener("submit", (ev) => { ev.preventDefault(); act(m, "forget", { reason: new FormData(form).get("reason") }); });
  box.append(form);
  $("#forget-reason").focus();
}

function purgeForm(m) {
  const box = $("#action-form");
  box.textContent = "";
  const form = el("form", { class: "inline", "aria-label": "Purge memory" },
    el("p", {}, "Purging erases this memory everywhere (store, history, word list). It cannot be undone."),
    el("label", { for: "purge-confirm-id" }, `Type ${short(m.id)} to confirm`),
    el("input", { id: "purge-confirm-id", name: "confirm", autocomplete: "off", required: true }),
    el("div", { class: "actions" }, el("button", { type: "submit", class: "danger confirm", id: "purge-confirm" }, "Purge for good"),
      el("button", { type: "button", onclick: () => { box.textContent = ""; } }, "Cancel")));
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const typed = String(new FormData(form).get("confirm") || "").trim();
    if (typed !== short(m.id)) { say(`Type ${short(m.id)} exactly to purge.`, true); return; }
    act(m, "purge", { confirm: typed });
  });
  box.append(form);
  $("#purge-confirm-id").focus();
}

async function loadHistory(id) {
  const box = $("#history");
  try {
    const h = await api(`/memory/${encodeURIComponent(id)}/history`);
    box.textContent = "";
    if (h.chain.length > 1) {
      const chain = el("div", { class: "chain", "aria-label": "Supersede chain, oldest first" });
      h.chain.forEach((c, i) => {
        if (i) chain.append(el("span", { class: "arrow", "aria-hidden": "true" }, "→"));
        chain.append(el("button", { type: "button", onclick: () => openMemory(c.id, true),
          "aria-current": c.id === id ? "true" : null, title: c.preview }, `${short(c.id)} (${c.status})`));
      });
      box.append(el("p", {}, "Supersede chain (oldest first):"), chain);
    }
    box.append(el("table", { "aria-label": "Content versions" },
      el("thead", {}, el("tr", {}, el("th", {}, "v"), el("th", {}, "when"), el("th", {}, "op"), el("th", {}, "content"))),
      el("tbody", {}, h.versions.map((v) => el("tr", {}, el("td", {}, v.version), el("td", {}, when(v.at)),
        el("td", {}, v.reason || ""), el("td", {}, v.content))))));
    box.append(el("table", { "aria-label": "Audit trail, newest first" },
      el("thead", {}, el("tr", {}, el("th", {}, "when"), el("th", {}, "op"), el("th", {}, "actor"), el("th", {}, "detail"))),
      el("tbody", {}, h.audit.map((a) => el("tr", {}, el("td", {}, when(a.at)), el("td", {}, a.op), el("td", {}, a.actor || ""),
        el("td", {}, a.detail ? Object.entries(a.detail).filter(([k]) => k !== "result_ids").map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`).join("; ") : ""))))));
  } catch (e) { box.textContent = e.message; }
}

async function loadRelated(id) {
  const box = $("#related");
  try {
    const g = await api(`/memory/${encodeURIComponent(id)}/related`);
    box.textContent = "";
    if (g.nodes.length < 2) { box.append(el("p", { class: "hint" }, "No relations recorded.")); return; }
    box.append(graph(g));
    const link = (nodeId) => nodeId === id ? el("strong", {}, `${short(nodeId)} (this)`)
      : el("button", { type: "button", onclick: () => openMemory(nodeId, true), title: (g.nodes.find((x) => x.id === nodeId) || {}).preview }, short(nodeId));
    box.append(el("ul", { "aria-label": "Relations, as recorded" }, g.edges.map((e) => el("li", {}, link(e.src), ` ${e.type} → `, link(e.dst)))));
  } catch (e) { box.textContent = e.message; }
}

function graph(g) {
  const W = 520, H = 260, cx = W / 2, cy = H / 2;
  const pos = {};
  const rings = { 0: [], 1: [], 2: [] };
  g.nodes.forEach((n) => (rings[Math.min(n.hops, 2)] || rings[2]).push(n));
  pos[g.center] = [cx, cy];
  const step = rings[2].length ? [110, 55] : [190, 90];
  [1, 2].forEach((ring) => rings[ring].forEach((n, i) => {
    const a = (2 * Math.PI * i) / rings[ring].length + ring * 0.4;
    pos[n.id] = [cx + Math.cos(a) * ring * step[0], cy + Math.sin(a) * ring * step[1]];
  }));
  const svg = svgEl("svg", { class: "graph", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": `Relation graph: ${g.nodes.length} memories, ${g.edges.length} relations` });
  svg.append(svgEl("defs", {}, svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 20, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }))));
  for (const e of g.edges) {
    const [a, b] = [pos[e.src], pos[e.dst]];
    if (!a || !b) continue;
    svg.append(svgEl("line", { class: "edge", x1: a[0], y1: a[1], x2: b[0], y2: b[1], "marker-end": "url(#arrow)" }));
    svg.append(svgEl("text", { x: (a[0] + b[0]) / 2, y: (a[1] + b[1]) / 2 - 3, "text-anchor": "middle" }, e.type));
  }
  for (const n of g.nodes) {
    const [x, y] = pos[n.id] || [cx, cy];
    const node = svgEl("g", { tabindex: 0, role: "button", "aria-label": `open ${short(n.id)}: ${n.preview.slice(0, 60)}` },
      svgEl("title", {}, n.preview), svgEl("circle", { class: n.id === g.center ? "node center" : "node", cx: x, cy: y, r: 9 }),
      svgEl("text", { x: x, y: y + 22, "text-anchor": "middle" }, short(n.id)));
    node.addEventListener("click", () => openMemory(n.id, true));
    node.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); openMemory(n.id, true); } });
    svg.append(node);
  }
  return svg;
}

async function loadAround(id) {
  const box = $("#around");
  try {
    const t = await api(`/memory/${encodeURIComponent(id)}/timeline`);
    box.textContent = "";
    const row = (m, mark) => el("li", {}, el("button", { type: "button", onclick: () => openMemory(m.id, true), "aria-current": mark ? "true" : null },
      `${when(m.created_at)} ${short(m.id)}`), ` ${mark ? "▶ " : ""}${m.preview.slice(0, 90)}`);
    box.append(el("ol", {}, [...t.earlier.map((m) => row(m)), row(t.anchor, true), ...t.later.map((m) => row(m))]));
  } catch (e) { box.textContent = e.message; }
}

// ------------------------------------------------------------------ timeline
function renderTimeline(results) {
  const box = $("#timeline");
  box.textContent = "";
  const days = {};
  for (const m of results) (days[day(m.created_at)] = days[day(m.created_at)] || []).push(m);
  const keys = Object.keys(days).sort().reverse();
  if (!keys.length) box.append(el("p", { class: "hint" }, "No memories match."));
  for (const k of keys) {
    box.append(el("section", { class: "day", "aria-label": k }, el("h3", {}, k),
      el("ol", { class: "results" }, days[k].map((m) => el("li", {},
        el("button", { class: "row", type: "button", onclick: () => { showView("memories"); openMemory(m.id, true); } },
          el("span", { class: "preview" }, m.preview), el("span", { class: "meta" }, badges(m))))))));
  }
}

// ------------------------------------------------------------------ blocks, sessions
async function loadBlocks() {
  const box = $("#blocks");
  try {
    const p = filterParams(false);
    const r = await api("/blocks?" + (p.get("project") ? "project=" + encodeURIComponent(p.get("project")) : ""));
    box.textContent = "";
    for (const b of r.blocks) box.append(el("div", { class: "block" },
      el("h3", {}, `${b.label} `, el("span", { class: "badge" }, b.scope), " ", el("span", { class: "hint" }, `${b.chars}/${b.limit} chars · v${b.version}`)),
      el("p", { class: "hint" }, b.description), el("div", { class: "content" }, b.value || "(empty)")));
  } catch (e) { box.textContent = e.message; }
}

async function loadSessions() {
  const box = $("#sessions");
  try {
    const p = filterParams(false);
    const r = await api("/sessions?" + (p.get("project") ? "project=" + encodeURIComponent(p.get("project")) : ""));
    box.textContent = "";
    if (!r.sessions.length) { box.append(el("p", { class: "hint" }, "No captured sessions (the Claude Code hooks capture them: `mnemex init claude-code`).")); return; }
    box.append(el("table", { "aria-label": "Captured sessions, most recent first" },
      el("thead", {}, el("tr", {}, ["session", "project", "started", "ended", "events", "tool uses", "failures", "prompts"].map((h) => el("th", {}, h)))),
      el("tbody", {}, r.sessions.map((s) => el("tr", {},
        el("td", {}, el("button", { type: "button", onclick: () => loadSession(s) }, s.session.slice(0, 12))),
        el("td", {}, s.project), el("td", {}, when(s.started)), el("td", {}, when(s.ended)), el("td", {}, s.events),
        el("td", {}, s.tool_uses), el("td", {}, s.failures), el("td", {}, s.prompts))))));
  } catch (e) { box.textContent = e.message; }
}

async function loadSession(s) {
  const box = $("#session-events");
  try {
    const r = await api(`/sessions/${encodeURIComponent(s.session)}?project=${encodeURIComponent(s.project)}`);
    box.textContent = "";
    box.append(el("h3", { tabindex: -1, id: "session-title" }, `Session ${s.session.slice(0, 12)} — ${r.events.length} events`),
      el("table", {}, el("tbody", {}, r.events.map((e) => el("tr", {}, el("td", {}, when(e.at)), el("td", {}, e.kind),
        el("td", {}, e.tool), el("td", {}, e.text || e.ref), el("td", {}, e.failed ? "failed" : ""),
        el("td", {}, e.duration_ms != null ? `${e.duration_ms} ms` : ""))))));
    $("#session-title").focus();
  } catch (e) { box.textContent = e.message; }
}

// ------------------------------------------------------------------ stats
function barChart(title, rows, keys) {
  const W = 560, H = 200, pad = 28;
  const totals = rows.map((r) => keys.reduce((s, k) => s + (r[k] || 0), 0));
  const max = Math.max(1, ...totals);
  const bw = Math.min(36, Math.max(2, (W - pad) / Math.max(rows.length, 1) - 2));
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H + 20}`, role: "img", width: "100%",
    "aria-label": `${title}: ${rows.length} days, ${totals.reduce((a, b) => a + b, 0)} in all` });
  svg.append(svgEl("text", { x: 0, y: 10 }, String(max)), svgEl("text", { x: 0, y: H }, "0"));
  rows.forEach((r, i) => {
    let y = H;
    keys.forEach((k, ki) => {
      const v = r[k] || 0;
      if (!v) return;
      const h = (v / max) * (H - 14);
      y -= h;
      svg.append(svgEl("rect", { x: pad + i * (bw + 2), y, width: bw, height: h, fill: PALETTE[ki % PALETTE.length] },
        svgEl("title", {}, `${r.day} ${k}: ${v}`)));
    });
  });
  if (rows.length) {
    svg.append(svgEl("text", { x: pad, y: H + 16 }, rows[0].day));
    svg.append(svgEl("text", { x: W, y: H + 16, "text-anchor": "end" }, rows[rows.length - 1].day));
  }
  const table = el("table", { class: "sr-table" }, el("caption", {}, `${title} (table)`),
    el("thead", {}, el("tr", {}, el("th", {}, "day"), keys.map((k) => el("th", {}, k)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, el("td", {}, r.day), keys.map((k) => el("td", {}, r[k] || 0))))));
  return el("figure", { class: "chart" }, el("figcaption", {}, el("strong", {}, title)), svg,
    el("ul", { class: "legend" }, keys.map((k, ki) => el("li", {}, el("i", { style: `background:${PALETTE[ki % PALETTE.length]}` }), k))),
    el("details", {}, el("summary", {}, "as a table"), table));
}

const DREAM_COLUMNS = ["rehearsed", "flashbulbs", "captured", "coactivated", "themes", "merged", "forgotten", "scope_promoted", "hot", "deferred"];
function dreamTable(dreams) {
  const cell = (d, k) => (k === "forgotten" && d.forgotten && typeof d.forgotten === "object")
    ? Object.values(d.forgotten).reduce((a, b) => a + b, 0) : (d[k] ?? 0);
  return el("section", { class: "dreams" }, el("h3", {}, "Dream cycles"),
    dreams.length ? el("table", {}, el("caption", {}, "What each dream cycle did (newest first)"),
      el("thead", {}, el("tr", {}, el("th", {}, "when"), DREAM_COLUMNS.map((k) => el("th", {}, k.replace("_", " "))),
        el("th", {}, "seconds"))),
      el("tbody", {}, dreams.map((d) => el("tr", {}, el("td", {}, when(d.at)), DREAM_COLUMNS.map((k) => el("td", {}, cell(d, k))),
        el("td", {}, (d.elapsed_seconds ?? 0).toFixed(1))))))
      : el("p", { class: "hint" }, "No dream cycle in this window (`mnemex dream`, or the daemon when idle)."));
}

const keysOf = (rows, skip) => [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => !skip.includes(k));

async function loadStats() {
  const box = $("#stats");
  box.textContent = "Loading…";
  try {
    const p = filterParams(false);
    const s = await api("/stats?" + (p.get("project") ? "project=" + encodeURIComponent(p.get("project")) : ""));
    box.textContent = "";
    box.append(el("div", { class: "totals" }, Object.entries(s.totals).map(([k, v]) => el("div", { class: "total" }, el("b", {}, v), k))));
    box.append(el("div", { class: "charts" },
      barChart("Memories created per day, by kind", s.by_kind, keysOf(s.by_kind, ["day"])),
      barChart("Memories created per day, by current tier", s.by_tier, keysOf(s.by_tier, ["day"])),
      barChart("What the write path did, per day (audit log)", s.write_ops, keysOf(s.write_ops, ["day"])),
      barChart("Capture volume per day (hook events)", s.capture, ["ok", "failed"])));
    box.append(dreamTable(s.dreams || []));
    box.append(el("p", { class: "hint" }, `Last ${s.days} days. ${s.note}.`));
  } catch (e) { box.textContent = e.message; }
}

// ------------------------------------------------------------------ views, keys
const VIEWS = ["memories", "timeline", "blocks", "sessions", "stats"];
function showView(name) {
  state.view = name;
  for (const v of VIEWS) {
    const tab = $(`#tab-${v}`), panel = $(`#view-${v}`);
    tab.setAttribute("aria-selected", String(v === name));
    tab.tabIndex = v === name ? 0 : -1;
    panel.hidden = v !== name;
  }
  if (name === "timeline") renderTimeline(state.results);
  if (name === "blocks") loadBlocks();
  if (name === "sessions") loadSessions();
  if (name === "stats") loadStats();
}

function wire() {
  VIEWS.forEach((v, i) => {
    const tab = $(`#tab-${v}`);
    tab.addEventListener("click", () => showView(v));
    tab.addEventListener("keydown", (ev) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[ev.key];
      if (!step) return;
      const next = VIEWS[(i + step + VIEWS.length) % VIEWS.length];
      showView(next);
      $(`#tab-${next}`).focus();
    });
  });
  $("#filters").addEventListener("submit", (ev) => { ev.preventDefault(); search().then(() => { if (state.view !== "memories" && state.view !== "timeline") showView(state.view); }); });
  for (const sel of ["#f-project", "#f-kind", "#f-scope", "#f-tier", "#f-status", "#f-pinned", "#f-since", "#f-until"])
    $(sel).addEventListener("change", () => $("#filters").requestSubmit());
  document.addEventListener("keydown", (ev) => {
    const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
    if (ev.key === "Escape") {
      if (typing) document.activeElement.blur();
      else if (!$("#detail").hidden) { $("#detail").hidden = true; const row = document.querySelector("#results li.active button"); if (row) row.focus(); }
      return;
    }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "/") { ev.preventDefault(); $("#q").focus(); }
    else if (state.view === "memories" && (ev.key === "j" || ev.key === "k")) {
      ev.preventDefault();
      const i = state.active + (ev.key === "j" ? 1 : -1);
      if (i >= 0 && i < state.results.length) select(i, false);
    }
  });
}

wire();
loadOverview().then(search).catch((e) => say(e.message, true));
