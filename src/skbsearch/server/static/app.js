// skbsearch explorer: vanilla JS over the JSON API of `skb serve`.
// Every piece of data reaches the DOM through textContent / setAttribute on elements we
// create (never innerHTML), and links are built from encodeURIComponent'ed ids.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const PALETTE = ["#1f5fbf", "#17803d", "#b3261e", "#7b61c9", "#c26a00", "#0f7c86",
  "#8a3f76", "#5b6570", "#4d7c0f", "#a16207"];
const STOP = new Set(["the", "and", "for", "with", "that", "this", "from", "are", "was",
  "under", "over", "than", "what", "which", "who", "has", "have", "not", "but", "its"]);
const state = { pipelines: null, kb: null };
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- DOM helpers
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}

function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, String(v));
  }
  for (const kid of kids.flat()) if (kid) e.append(kid);
  return e;
}

const nodeHref = (id) => "#/node/" + encodeURIComponent(id);
const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + "…" : s);
const fmt = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(3));

function setStatus(text, isError) {
  const s = $("status");
  s.textContent = text || "";
  s.classList.toggle("error", !!isError);
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (_) { data = null; }
  if (!r.ok) {
    let msg = data && data.detail;
    if (Array.isArray(msg)) msg = msg.map((d) => (d.loc || []).slice(1).join(".") + ": " + d.msg).join("; ");
    const err = new Error((msg || r.statusText || "request failed") + " (HTTP " + r.status + ")");
    err.stages = data && data.stages;
    throw err;
  }
  return data;
}

function showError(err) {
  let text = err.message;
  if (err.stages) text += " — registered stages: " + err.stages.join(", ");
  setStatus(text, true);
}

// ---------------------------------------------------------------- start-up data
async function loadPipelines() {
  if (!state.pipelines) state.pipelines = await api("/pipelines");
  return state.pipelines;
}

async function loadKb() {
  if (!state.kb) state.kb = await api("/kb");
  return state.kb;
}

function fillPipelineSelect(select, value) {
  const names = state.pipelines ? state.pipelines.pipelines : [{ name: "bm25", spec: "bm25" }];
  select.replaceChildren(...names.map((p) => el("option", { value: p.name, text: p.name })),
    el("option", { value: "", text: "custom spec…" }));
  const known = names.some((p) => p.name === value);
  select.value = known ? value : (value ? "" : names[0].name);
  return known;
}

async function initChrome() {
  try {
    await loadPipelines();
    const p = new URLSearchParams(routeQuery());
    const known = fillPipelineSelect($("pipeline"), p.get("p") || state.pipelines.default);
    if (!known && p.get("p")) $("spec").value = p.get("p");
    toggleSpec();
    const kb = await loadKb();
    const types = Object.keys(kb.node_types);
    $("type").replaceChildren(el("option", { value: "", text: "any type" }),
      ...types.map((t) => el("option", { value: t, text: t })));
    if (p.get("t")) $("type").value = p.get("t");
    placeholders(kb.examples || {});
    $("kbline").textContent = kb.nodes.toLocaleString() + " nodes · " +
      kb.edges.toLocaleString() + " edges · snapshot " + kb.snapshot;
  } catch (err) { showError(err); }
}

function placeholders(ex) {
  // Examples from the served KB (a real node name, a real attribute), not a fixed catalogue's.
  if (ex.query) $("q").placeholder = "e.g. " + ex.query;
  $("where").placeholder = ex.where ? "e.g. " + ex.where : "no attributes to filter on";
  if (ex.spec) $("spec").placeholder = ex.spec;
}

function toggleSpec() {
  const custom = $("pipeline").value === "";
  $("spec-wrap").classList.toggle("hidden", !custom);
}

// ---------------------------------------------------------------- routing
function routeQuery() {
  const h = location.hash;
  const i = h.indexOf("?");
  return i >= 0 ? h.slice(i + 1) : "";
}

function route() {
  const h = location.hash || "";
  let path = h.startsWith("#/") ? h.slice(1).split("?")[0] : "/";
  if (!h.startsWith("#/") && location.pathname.startsWith("/node/")) path = location.pathname;
  const q = new URLSearchParams(routeQuery());
  let section = "search";
  if (path.startsWith("/node/")) section = "node";
  else if (path === "/kb") section = "kb";
  else if (path === "/compare") section = "compare";
  for (const a of document.querySelectorAll("[data-nav]")) {
    a.classList.toggle("active", a.dataset.nav === section);
    if (a.dataset.nav === section) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  $("search-view").classList.toggle("hidden", section !== "search");
  $("other-view").classList.toggle("hidden", section === "search");
  if (section === "search") {
    document.title = "skbsearch explorer";
    if (q.get("q")) searchFromUrl(q);
  } else {
    setStatus("");
    const view = $("other-view");
    view.replaceChildren(el("p", { class: "status", role: "status", text: "Loading…" }));
    if (section === "node") nodeView(view, decodeURIComponent(path.slice(6)));
    else if (section === "kb") kbView(view);
    else compareView(view, q);
  }
}

// ---------------------------------------------------------------- search
function pipelineValue(select, spec) {
  return select.value === "" ? spec.value.trim() : select.value;
}

function onSearchSubmit(ev) {
  ev.preventDefault();
  const text = $("q").value.trim();
  if (!text) { setStatus("Type a query first.", true); $("q").focus(); return; }
  const p = new URLSearchParams({ q: text, p: pipelineValue($("pipeline"), $("spec")) });
  if ($("type").value) p.set("t", $("type").value);
  if ($("where").value.trim()) p.set("w", $("where").value.trim());
  p.set("k", $("k").value || "10");
  const target = "#/search?" + p.toString();
  if (location.hash === target) route(); else location.hash = target;
}

function searchBody(q) {
  const body = { query: q.get("q"), k: Math.max(1, Math.min(100, parseInt(q.get("k") || "10", 10) || 10)) };
  body.pipeline = q.get("p") || (state.pipelines ? state.pipelines.default : "bm25");
  if (q.get("t")) body.types = [q.get("t")];
  if (q.get("w")) body.where = q.get("w");
  return body;
}

async function searchFromUrl(q) {
  $("q").value = q.get("q");
  if (q.get("w")) $("where").value = q.get("w");
  if (q.get("k")) $("k").value = q.get("k");
  if (q.get("t") && state.kb) $("type").value = q.get("t");
  if (state.pipelines) {
    const known = fillPipelineSelect($("pipeline"), q.get("p") || state.pipelines.default);
    if (!known && q.get("p")) $("spec").value = q.get("p");
    toggleSpec();
  }
  const body = searchBody(q);
  setStatus("Searching…");
  $("results").replaceChildren();
  const t0 = performance.now();
  try {
    const r = await api("/search", body);
    const hits = r.results.hits;
    const ms = Math.round(performance.now() - t0);
    setStatus(hits.length + " results · " + r.pipeline + " · " + ms + " ms");
    $("results").replaceChildren(...hits.map((h) => hitItem(h, body)));
    document.title = body.query + " – skbsearch explorer";
  } catch (err) { showError(err); }
}

function hitItem(h, body) {
  const li = el("li", { class: "hit", "data-id": h.id });
  const head = el("div", { class: "hit-head" },
    el("a", { href: nodeHref(h.id), text: h.name || h.id }),
    el("span", { class: "badge", text: h.type || "?" }),
    el("code", { text: h.id }),
    el("span", { class: "score", text: "score " + fmt(h.score) }));
  const why = el("button", { type: "button", class: "link", text: "why?",
    "aria-label": "Explain why " + (h.name || h.id) + " ranked here" });
  head.append(why);
  li.append(el("span", { class: "rank", text: h.rank + "." }), head);
  if (h.evidence && h.evidence.length) li.append(evidenceList(h.evidence, body.query));
  why.addEventListener("click", async () => {
    const old = li.querySelector(".why");
    if (old) { old.remove(); return; }
    const box = el("div", { class: "why", role: "status", text: "Explaining…" });
    li.append(box);
    try {
      const e = await api("/explain", { query: body.query, id: h.id, pipeline: body.pipeline,
        types: body.types || [], where: body.where || null });
      box.replaceChildren(...[
        el("div", {}, "Rank ", el("b", { text: e.rank === null ? "not retrieved" : String(e.rank) }),
          " of " + e.retrieved + " · score " + fmt(e.score) + " · ", el("code", { text: e.pipeline })),
        e.above ? el("div", { class: "muted" }, "next above: ", el("a", { href: nodeHref(e.above.id), text: e.above.id }),
          " (score " + fmt(e.above.score) + ")") : null,
        evidenceList(e.evidence, body.query)].filter(Boolean));
    } catch (err) { box.textContent = err.message; }
  });
  return li;
}

function queryTerms(query) {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) || [])
    .filter((w) => w.length > 2 && !STOP.has(w)).map((w) => w.slice(0, Math.max(3, Math.min(w.length, 5))));
}

function highlighted(text, terms) {
  const frag = document.createDocumentFragment();
  for (const part of text.split(/([\p{L}\p{N}]+)/u)) {
    if (!part) continue;
    const low = part.toLowerCase();
    if (/[\p{L}\p{N}]/u.test(part) && terms.some((t) => low.startsWith(t))) frag.append(el("mark", { text: part }));
    else frag.append(document.createTextNode(part));
  }
  return frag;
}

const PATH_RE = /^path: (.+?) --(.+?)--> (.+?)(?: \((.*)\))?$/;

function evidenceList(lines, query) {
  const terms = queryTerms(query || "");
  const ul = el("ul", { class: "evidence" });
  for (const line of lines) {
    const m = PATH_RE.exec(line);
    const colon = line.indexOf(": ");
    const kind = m ? "path" : (colon > 0 && colon < 12 ? line.slice(0, colon) : "text");
    const rest = colon > 0 && colon < 12 ? line.slice(colon + 2) : line;
    const li = el("li", { class: "ev-" + kind.replace(/[^a-z]/g, "") }, el("span", { class: "ev-kind", text: kind }));
    if (m) {
      li.append(el("span", { class: "chip", text: m[1] }), el("span", { class: "rel", text: "—" + m[2] + "→" }),
        el("span", { class: "chip" }, highlighted(m[3], terms)));
      if (m[4]) li.append(el("span", { class: "muted", text: " (" + m[4] + ")" }));
    } else if (kind === "attribute" || kind === "fact") {
      li.append(el("span", { text: rest }));
    } else {
      li.append(highlighted(rest, terms));
    }
    ul.append(li);
  }
  return ul;
}

// ---------------------------------------------------------------- node page
const PAGE = 20;

async function nodeView(view, id) {
  try {
    const n = await api("/nodes/" + encodeURIComponent(id) + "?limit=" + PAGE);
    document.title = (n.name || n.id) + " – skbsearch explorer";
    const h = el("h1", { tabindex: "-1", text: n.name || n.id });
    const attrs = el("dl", { class: "attrs" });
    for (const [k, v] of Object.entries(n.attributes)) attrs.append(el("dt", { text: k }), el("dd", { text: String(v) }));
    const fields = Object.entries(n.fields).map(([k, v]) =>
      el("div", {}, el("h3", { text: k }), el("p", { text: clip(String(v), 2000) })));
    const groups = el("div", { id: "neighbours" }, ...n.relations.map((g) => neighbourGroup(n.id, g)));
    view.replaceChildren(
      el("div", { class: "node-head" }, h, el("span", { class: "badge", text: n.type }), el("code", { text: n.id })),
      el("div", { class: "cols" },
        el("div", {}, el("h2", { text: "Neighbourhood" }), neighbourhoodSvg(n), relationLegend(n.relations),
          el("p", { class: "muted", text: "Drawn: up to 24 neighbours, taken in turn from each relation; " +
            "dashed lines are in-coming edges. " + n.relations.reduce((t, g) => t + g.total, 0) + " links in all." }),
          el("h2", { text: "Neighbours by relation" }),
          n.relations.length ? groups : el("p", { class: "muted", text: "No edges." })),
        el("div", {}, el("h2", { text: "Attributes" }),
          Object.keys(n.attributes).length ? attrs : el("p", { class: "muted", text: "None." }),
          ...fields, el("h2", { text: "Document" }), el("pre", { class: "doc", text: n.document }))));
    h.focus();
  } catch (err) {
    view.replaceChildren(el("h1", { text: "Node not found" }), el("p", { class: "status error", text: err.message }),
      el("p", {}, el("a", { href: "#/", text: "Back to search" })));
  }
}

function relationTitle(g) {
  return g.direction === "out" ? g.base + " →" : "← " + g.base;
}

function neighbourGroup(id, g) {
  const ul = el("ul", {}, ...g.nodes.map(neighbourItem));
  const sec = el("section", { class: "nbr-group", "data-relation": g.relation },
    el("h3", {}, relationTitle(g) + " ", el("span", { class: "muted", text: "(" + g.total + ")" })), ul);
  let shown = g.nodes.length;
  if (shown < g.total) {
    const more = el("button", { type: "button", class: "link", text: "Show more (" + (g.total - shown) + " left)" });
    more.addEventListener("click", async () => {
      try {
        const r = await api("/nodes/" + encodeURIComponent(id) + "?relation=" + encodeURIComponent(g.relation) +
          "&offset=" + shown + "&limit=" + PAGE);
        const page = r.relations.length ? r.relations[0].nodes : [];
        const items = page.map(neighbourItem);
        ul.append(...items);
        shown += page.length;
        if (items.length) items[0].querySelector("a").focus();
        if (shown >= g.total || !page.length) more.remove();
        else more.textContent = "Show more (" + (g.total - shown) + " left)";
      } catch (err) { more.textContent = err.message; }
    });
    sec.append(more);
  }
  return sec;
}

function neighbourItem(m) {
  return el("li", {}, el("a", { href: nodeHref(m.id), text: m.name || m.id }), " ",
    el("span", { class: "badge", text: m.type }));
}

function relationColours(relations) {
  const bases = [...new Set(relations.map((g) => g.base))];
  return Object.fromEntries(bases.map((b, i) => [b, PALETTE[i % PALETTE.length]]));
}

function relationLegend(relations) {
  const col = relationColours(relations);
  return el("div", { class: "legend" }, ...relations.map((g) =>
    el("span", {}, el("span", { class: "swatch", "data-colour": col[g.base] }), relationTitle(g))));
}

function neighbourhoodSvg(n) {
  // Radial layout: the node in the centre, at most 24 neighbours on a circle, taken
  // round-robin from each relation so every relation shows.
  const W = 660, H = 420, cx = W / 2, cy = H / 2, R = 150, MAX = 24;
  const col = relationColours(n.relations);
  const picked = [];
  const queues = n.relations.map((g) => g.nodes.map((m) => ({ ...m, g })));
  while (picked.length < MAX && queues.some((q) => q.length)) {
    for (const q of queues) if (q.length && picked.length < MAX) picked.push(q.shift());
  }
  const root = svg("svg", { class: "graph", viewBox: "0 0 " + W + " " + H, role: "img",
    "aria-label": "Neighbourhood of " + (n.name || n.id) + ": " + picked.length + " neighbours shown" });
  const edges = svg("g", {}), nodes = svg("g", {});
  picked.forEach((m, i) => {
    const a = (2 * Math.PI * i) / Math.max(picked.length, 1) - Math.PI / 2;
    const r = picked.length > 12 && i % 2 ? R * 0.7 : R;  // two rings when crowded
    const x = cx + r * Math.cos(a), y = cy + r * Math.sin(a);
    const c = col[m.g.base];
    edges.append(svg("line", { x1: cx, y1: cy, x2: x, y2: y, stroke: c, "stroke-width": 1.5,
      "stroke-dasharray": m.g.direction === "in" ? "4 3" : null }));
    const right = Math.cos(a) >= 0;
    const link = svg("a", { href: nodeHref(m.id), class: "nbr" },
      svg("title", { text: (m.name || m.id) + " (" + relationTitle(m.g) + ")" }),
      svg("circle", { cx: x, cy: y, r: 9, fill: c, stroke: "#fff", "stroke-width": 2 }),
      svg("text", { x: x + (right ? 13 : -13), y: y + 4, "text-anchor": right ? "start" : "end",
        text: clip(m.name || m.id, 22) }));
    nodes.append(link);
  });
  const centre = svg("g", {}, svg("circle", { cx, cy, r: 16, fill: "#1d232a" }),
    svg("text", { x: cx, y: cy + 34, "text-anchor": "middle", "font-weight": "600", text: clip(n.name || n.id, 30) }));
  root.append(edges, nodes, centre);
  return root;
}

// ---------------------------------------------------------------- KB overview
async function kbView(view) {
  try {
    const kb = await loadKb();
    document.title = "KB overview – skbsearch explorer";
    const d = kb.degree;
    const types = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "type" }),
      el("th", { class: "num", text: "nodes" }), el("th", { class: "num", text: "mean degree" }),
      el("th", { class: "num", text: "max degree" }))),
    el("tbody", {}, ...kb.schema.types.map((t) => el("tr", {}, el("td", { text: t.name }),
      el("td", { class: "num", text: t.count.toLocaleString() }),
      el("td", { class: "num", text: String(kb.degree_by_type[t.name].mean) }),
      el("td", { class: "num", text: String(kb.degree_by_type[t.name].max) })))));
    const rels = el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "relation" }),
      el("th", { text: "source → target" }), el("th", { class: "num", text: "edges" }))),
    el("tbody", {}, ...kb.schema.relations.map((r) => el("tr", {}, relationCell(r.relation, kb.relation_ids),
      el("td", { text: r.source + " → " + r.target }), el("td", { class: "num", text: r.count.toLocaleString() })))));
    const top = el("ol", {}, ...kb.top_degree.map((t) => el("li", {},
      el("a", { href: nodeHref(t.id), text: t.name || t.id }), " ", el("span", { class: "badge", text: t.type }),
      el("span", { class: "muted", text: " degree " + t.degree }))));
    view.replaceChildren(el("h1", { tabindex: "-1", text: "KB overview" }),
      el("div", { class: "cards" },
        el("div", { class: "card" }, el("b", { text: kb.nodes.toLocaleString() }), "nodes"),
        el("div", { class: "card" }, el("b", { text: kb.edges.toLocaleString() }), "edges"),
        el("div", { class: "card" }, el("b", { text: String(kb.schema.types.length) }), "node types"),
        el("div", { class: "card" }, el("b", { text: String(kb.relations.length) }), "relations")),
      el("h2", { text: "Schema" }), schemaView(kb),
      el("div", { class: "cols" },
        el("div", {}, el("h2", { text: "Node types" }), types, el("h2", { text: "Relations" }), rels),
        el("div", {}, el("h2", { text: "Degree" }),
          el("p", { text: "edges per node (both directions): min " + d.min + ", median " + d.median +
            ", mean " + d.mean + ", p95 " + d.p95 + ", max " + d.max }),
          el("h3", { text: "Best connected" }), top,
          el("h3", { text: "Text fields" }), el("p", { text: kb.text_fields.join(", ") || "none" }),
          el("h3", { text: "Attributes" }), el("p", { text: kb.attributes.join(", ") || "none" }))));
    view.querySelector("h1").focus();
  } catch (err) { view.replaceChildren(el("p", { class: "status error", text: err.message })); }
}

function relationCell(name, ids) {
  const raw = ids && ids[name];
  return raw && raw !== name ? el("td", {}, name, el("br"), el("span", { class: "muted small", text: raw }))
    : el("td", { text: name });
}

//: A schema larger than this is drawn as its largest types and the relations among them.
const SCHEMA_TYPES = 8, SCHEMA_RELATIONS = 24, SCHEMA_PAIRS = 12;

function schemaView(kb) {
  const all = kb.schema.types, rels = kb.schema.relations;
  if (all.length <= SCHEMA_TYPES && rels.length <= SCHEMA_RELATIONS) return schemaSvg(kb.schema);
  const top = [...all].sort((a, b) => b.count - a.count).slice(0, SCHEMA_TYPES);
  const keep = new Set(top.map((t) => t.name));
  const pairs = new Map();
  for (const r of rels) {
    if (!keep.has(r.source) || !keep.has(r.target)) continue;
    const key = [r.source, r.target].sort().join("\u0000");  // one arrow a pair of types
    if (!pairs.has(key)) pairs.set(key, { source: r.source, target: r.target, count: 0, names: [] });
    const p = pairs.get(key);
    p.count += r.count;
    p.names.push([r.count, r.relation]);
  }
  const grouped = [...pairs.values()].sort((a, b) => b.count - a.count).slice(0, SCHEMA_PAIRS)
    .map((p) => {
      p.names.sort((a, b) => b[0] - a[0]);
      const label = clip(p.names[0][1], 18) + (p.names.length > 1 ? " +" + (p.names.length - 1) : "");
      return { relation: label, source: p.source, target: p.target, count: p.count,
        title: p.names.map((x) => x[1] + " (" + x[0] + ")").join(", ") };
    });
  const nodesShown = top.reduce((s, t) => s + t.count, 0), nodesAll = all.reduce((s, t) => s + t.count, 0);
  const note = el("p", { class: "muted", text: "The " + top.length + " largest of " + all.length +
    " node types (" + Math.round(100 * nodesShown / Math.max(nodesAll, 1)) + "% of the nodes) and the " +
    "relations among them, one arrow a pair of types (the busiest " + grouped.length + " pairs; the label " +
    "names the pair's largest relation, +N the others: hover for all). The tables below list every type and relation." });
  return el("div", {}, note, schemaSvg({ types: top, relations: grouped }));
}

function schemaSvg(schema) {
  // Types as boxes on a circle, relations as curved arrows (self-relations as loops).
  const kb = { schema };
  const types = kb.schema.types.map((t) => t.name);
  const W = 760, H = 470, cx = W / 2, cy = H / 2 + 20, R = Math.min(165, 40 + 30 * types.length);
  const BW = 120, BH = 36;
  const pos = {};
  types.forEach((t, i) => {
    const a = (2 * Math.PI * i) / types.length - Math.PI / 2;
    pos[t] = types.length === 1 ? [cx, cy] : [cx + 1.6 * R * Math.cos(a), cy + R * Math.sin(a)];
  });
  const root = svg("svg", { class: "schema", viewBox: "0 0 " + W + " " + H, role: "img",
    "aria-label": "Schema: " + types.length + " node types, " + kb.schema.relations.length + " relations" });
  root.append(svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#5b6570" }))));
  const seen = {};
  for (const r of kb.schema.relations) {
    const key = [r.source, r.target].sort().join("|");
    const nth = (seen[key] = (seen[key] || 0) + 1) - 1;
    const [x1, y1] = pos[r.source], [x2, y2] = pos[r.target];
    let d, lx, ly;
    if (r.source === r.target) {
      const s = 24 + 30 * nth;
      d = `M${x1 - 20},${y1 - BH / 2} C${x1 - 30 - s},${y1 - BH / 2 - 40 - s} ${x1 + 30 + s},${y1 - BH / 2 - 40 - s} ${x1 + 20},${y1 - BH / 2}`;
      lx = x1; ly = y1 - BH / 2 - 0.75 * (40 + s) - 4;
    } else {
      const mx = (x1 + x2) / 2, my = (y1 + y2) / 2, dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
      const bend = (nth % 2 ? -1 : 1) * (18 + 22 * Math.floor(nth / 2));
      const qx = mx - (dy / len) * bend, qy = my + (dx / len) * bend;
      const [sx, sy] = boxEdge(x1, y1, qx, qy, BW, BH), [tx, ty] = boxEdge(x2, y2, qx, qy, BW, BH);
      d = `M${sx},${sy} Q${qx},${qy} ${tx},${ty}`;
      lx = (sx + 2 * qx + tx) / 4; ly = (sy + 2 * qy + ty) / 4;
    }
    root.append(svg("g", { class: "rel-edge" },
      svg("title", { text: (r.title || r.relation) + ": " + r.source + " → " + r.target + " (" + r.count + " edges)" }),
      svg("path", { d, fill: "none", stroke: "#5b6570", "stroke-width": 1.4, "marker-end": "url(#arrow)" }),
      svg("text", { x: lx, y: ly, "text-anchor": "middle", class: "edge-label", text: r.relation + " (" + r.count + ")" })));
  }
  for (const t of kb.schema.types) {
    const [x, y] = pos[t.name];
    root.append(svg("g", { class: "type-box" },
      svg("rect", { x: x - BW / 2, y: y - BH / 2, width: BW, height: BH, rx: 6, fill: "#eef3fb", stroke: "#1f5fbf" }),
      svg("text", { x, y: y - 2, "text-anchor": "middle", "font-weight": "600", text: clip(t.name, 16) }),
      svg("text", { x, y: y + 12, "text-anchor": "middle", class: "edge-label", text: t.count.toLocaleString() + " nodes" })));
  }
  return root;
}

function boxEdge(x, y, tx, ty, bw, bh) {
  // Where the segment from a box's centre towards (tx, ty) leaves the box.
  const dx = tx - x, dy = ty - y;
  const s = Math.min(Math.abs(dx) > 0 ? bw / 2 / Math.abs(dx) : Infinity, Math.abs(dy) > 0 ? bh / 2 / Math.abs(dy) : Infinity);
  return [x + dx * Math.min(s, 1), y + dy * Math.min(s, 1)];
}

// ---------------------------------------------------------------- compare
async function compareView(view, q) {
  await loadPipelines().catch(() => null);
  const names = state.pipelines ? state.pipelines.pipelines.map((p) => p.name) : ["bm25"];
  const pickA = pickerFor("a", q.get("a") || names[0]);
  const pickB = pickerFor("b", q.get("b") || names[Math.min(1, names.length - 1)]);
  const query = el("input", { id: "cq", type: "search", value: q.get("q") || "", maxlength: "1000",
    placeholder: "one query, two pipelines", autocomplete: "off" });
  const form = el("form", { class: "searchbar", role: "search" },
    el("label", { class: "grow" }, el("span", { class: "lbl", text: "Query" }), query),
    pickA.node, pickB.node, el("button", { type: "submit", text: "Compare" }));
  const status = el("p", { class: "status", role: "status", "aria-live": "polite" });
  const out = el("div", { class: "compare" });
  view.replaceChildren(el("h1", { text: "Compare pipelines" }), form, status, out);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams({ q: query.value.trim(), a: pickA.value(), b: pickB.value() });
    location.hash = "#/compare?" + p.toString();
  });
  if (!q.get("q")) { query.focus(); return; }
  document.title = "Compare – skbsearch explorer";
  status.textContent = "Running both pipelines…";
  try {
    const [ra, rb] = await Promise.all([q.get("a"), q.get("b")].map((p) =>
      api("/search", { query: q.get("q"), pipeline: p, k: 20, evidence: 0 })));
    const a = ra.results.hits, b = rb.results.hits;
    const rankA = new Map(a.map((h) => [h.id, h.rank])), rankB = new Map(b.map((h) => [h.id, h.rank]));
    const shared = a.filter((h) => rankB.has(h.id)).length;
    status.textContent = shared + " of " + Math.max(a.length, b.length) + " results in both · left: " +
      ra.pipeline + " · right: " + rb.pipeline;
    out.replaceChildren(compareColumn(ra.pipeline, a, rankB, false), compareColumn(rb.pipeline, b, rankA, true));
  } catch (err) {
    status.textContent = err.message + (err.stages ? " — registered stages: " + err.stages.join(", ") : "");
    status.classList.add("error");
  }
}

function pickerFor(id, value) {
  const select = el("select", { id: "pick-" + id, "aria-label": "Pipeline " + id.toUpperCase() });
  const spec = el("input", { type: "text", class: "hidden", "aria-label": "Spec for pipeline " + id.toUpperCase(),
    placeholder: "spec", spellcheck: "false", maxlength: "1000" });
  const known = fillPipelineSelect(select, value);
  if (!known && value) { spec.value = value; spec.classList.remove("hidden"); }
  select.addEventListener("change", () => spec.classList.toggle("hidden", select.value !== ""));
  const node = el("label", {}, el("span", { class: "lbl", text: "Pipeline " + id.toUpperCase() }), select, spec);
  return { node, value: () => pipelineValue(select, spec) };
}

function compareColumn(title, hits, otherRank, isRight) {
  const ol = el("ol", {}, ...hits.map((h) => {
    const other = otherRank.get(h.id);
    let delta;
    if (other === undefined) delta = el("span", { class: "delta new", text: isRight ? "new" : "only here" });
    else if (other === h.rank) delta = el("span", { class: "delta same", text: "=" });
    else if (isRight) {
      const up = other > h.rank;
      delta = el("span", { class: "delta " + (up ? "up" : "down"),
        text: (up ? "▲ " : "▼ ") + Math.abs(other - h.rank), title: "rank " + other + " on the left" });
    } else delta = el("span", { class: "delta same", text: "→ " + other });
    return el("li", { "data-id": h.id }, el("span", { class: "rank", text: h.rank + "." }),
      el("span", {}, el("a", { href: nodeHref(h.id), text: h.name || h.id }), " ", el("span", { class: "badge", text: h.type || "?" })),
      delta);
  }));
  return el("section", {}, el("h2", {}, el("code", { text: title })), ol);
}

// ---------------------------------------------------------------- wiring
function paintSwatches(root) {
  // Colours come from our palette; set through the CSSOM (CSP forbids style attributes).
  for (const s of root.querySelectorAll(".swatch[data-colour]")) s.style.background = s.dataset.colour;
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", onSearchSubmit);
  $("pipeline").addEventListener("change", () => { toggleSpec(); if ($("pipeline").value === "") $("spec").focus(); });
  new MutationObserver(() => paintSwatches($("other-view"))).observe($("other-view"), { childList: true, subtree: true });
  window.addEventListener("hashchange", route);
  initChrome().then(route);
});
