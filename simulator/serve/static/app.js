// sim serve: the page. The form is drawn from the procedure's parameter model (JSON Schema);
// every change goes into one variant beside the base; runs stream their estimates as chunks
// finish (Server-Sent Events). Everything shown comes from the server: no number is computed here.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
const state = {
  path: null, source: null, data: null, defs: {}, base: {}, current: {},
  job: null, events: null, running: false, wantRun: false, timer: null, lastText: null,
  lastRun: null,
};
// What the tests read: the last run's document and view.
window.sim = { document: null, view: null, job: null };

async function api(method, url, body) {
  const options = { method, headers: { "X-Sim-Token": TOKEN } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = {};
  try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
  return { status: response.status, data };
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const copy = (x) => JSON.parse(JSON.stringify(x));
const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function merge(base, over) {
  if (!isObject(base) || !isObject(over)) return copy(over);
  const out = copy(base);
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? merge(out[k], v) : copy(v);
  return out;
}

// The overrides that turn `base` into `current`: changed leaves, whole lists.
function difference(base, current) {
  if (isObject(base) && isObject(current)) {
    const out = {};
    for (const k of Object.keys(current)) {
      const d = difference(base[k], current[k]);
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return same(base, current) ? undefined : current;
}

// ---- paths like attacker.units or raids[1].ships -------------------------------------------
function join(path, key) {
  if (typeof key === "number") return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}
function parts(path) {
  return path.split(/\.|(?=\[)/).map((p) => (p.startsWith("[") ? Number(p.slice(1, -1)) : p));
}
function getAt(tree, path) {
  let t = tree;
  for (const p of parts(path)) t = t === undefined || t === null ? undefined : t[p];
  return t;
}
function setAt(tree, path, value) {
  const ps = parts(path);
  let t = tree;
  for (const p of ps.slice(0, -1)) t = t[p];
  t[ps[ps.length - 1]] = value;
}

// ---- the form, from the JSON Schema ---------------------------------------------------------
function resolve(s) {
  let seen = 0;
  while (s && s.$ref && seen++ < 20) s = state.defs[s.$ref.split("/").pop()];
  return s || {};
}
const SCALARS = ["enum", "bool", "number", "text", "choice", "null", "const"];
function kindOf(schema) {
  const s = resolve(schema);
  if (s.enum) return "enum";
  if (s.const !== undefined) return "const";
  if (s.type === "boolean") return "bool";
  if (s.type === "integer" || s.type === "number") return "number";
  if (s.type === "string") return "text";
  if (s.type === "null") return "null";
  if (s.type === "object" && s.properties) return "object";
  if (s.type === "array") {
    const item = kindOf(s.items || {});
    return item === "object" || SCALARS.includes(item) ? "array" : "json";
  }
  const alternatives = s.anyOf || s.oneOf;
  if (alternatives && alternatives.every((a) => SCALARS.includes(kindOf(a)))) return "choice";
  return "json";
}

function hint(schema) {
  const s = resolve(schema);
  const alternatives = s.anyOf || s.oneOf;
  if (alternatives) return alternatives.map(hint).filter(Boolean).join(" or ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "null") return "empty for none";
  if (s.minimum !== undefined || s.maximum !== undefined) {
    return `${s.type === "integer" ? "whole number" : "number"} ${s.minimum ?? "…"}–${s.maximum ?? "…"}`;
  }
  return s.type || "";
}

function parseChoice(schema, text) {
  const s = resolve(schema);
  const kinds = (s.anyOf || s.oneOf).map(kindOf);
  const t = text.trim();
  if (t === "" && kinds.includes("null")) return null;
  if (/^-?\d+$/.test(t) && kinds.includes("number")) return parseInt(t, 10);
  if (/^-?\d*\.?\d+(e-?\d+)?$/i.test(t) && kinds.includes("number")) return parseFloat(t);
  if ((t === "true" || t === "false") && kinds.includes("bool")) return t === "true";
  return t;
}

function onEdit(path, value) {
  setAt(state.current, path, value);
  markChanged();
  changed();
}

function input(schema, path, value) {
  const s = resolve(schema);
  const kind = kindOf(schema);
  const id = `f-${path}`;
  let node;
  if (kind === "enum") {
    node = el("select", { id });
    for (const option of s.enum) {
      node.append(el("option", { value: JSON.stringify(option), text: String(option) }));
    }
    node.value = JSON.stringify(value);
    node.addEventListener("change", () => onEdit(path, JSON.parse(node.value)));
  } else if (kind === "bool") {
    node = el("input", { id, type: "checkbox" });
    node.checked = Boolean(value);
    node.addEventListener("change", () => onEdit(path, node.checked));
  } else if (kind === "number") {
    node = el("input", {
      id, type: "number", min: s.minimum, max: s.maximum,
      step: s.type === "integer" ? 1 : "any",
    });
    node.value = value === null || value === undefined ? "" : String(value);
    node.addEventListener("change", () => onEdit(path, node.value === "" ? null : Number(node.value)));
  } else if (kind === "choice" || kind === "text" || kind === "const" || kind === "null") {
    node = el("input", { id, type: "text", size: 10 });
    node.value = value === null || value === undefined ? "" : String(value);
    const parse = kind === "choice" ? (t) => parseChoice(schema, t) : (t) => t;
    node.addEventListener("change", () => onEdit(path, parse(node.value)));
  } else {
    node = el("textarea", { id, rows: 2, cols: 40 });
    node.value = JSON.stringify(value);
    node.addEventListener("change", () => {
      try {
        onEdit(path, JSON.parse(node.value));
      } catch (e) {
        showProblems([{ field: path, text: `${path}: not JSON: ${e.message}` }]);
      }
    });
  }
  node.dataset.path = path;
  return node;
}

function field(schema, path, name, value) {
  const s = resolve(schema);
  const kind = kindOf(schema);
  const marks = state.data.procedure ? state.data.procedure.marks : {};
  const badges = [];
  if (marks[path]) {
    const m = marks[path];
    badges.push(el("span", { class: `mark ${m.tag}`, title: `${m.text} (${m.rule})`, text: m.tag }));
  }
  if (state.data.swept.includes(path)) badges.push(el("span", { class: "mark", text: "swept" }));
  const description = schema.description || s.description || "";
  if (kind === "object") {
    const box = el("fieldset", { "data-field": path }, el("legend", { text: name }, ...badges));
    if (description) box.append(el("p", { class: "muted small", text: description }));
    for (const [key, sub] of Object.entries(s.properties)) {
      box.append(field(sub, join(path, key), key, value ? value[key] : undefined));
    }
    box.append(el("div", { class: "problem", "data-for": path }));
    return box;
  }
  if (kind === "array") {
    const box = el("fieldset", { "data-field": path }, el("legend", { text: name }, ...badges));
    if (description) box.append(el("p", { class: "muted small", text: description }));
    const items = Array.isArray(value) ? value : [];
    items.forEach((item, i) => box.append(field(s.items || {}, join(path, i), `${name} ${i + 1}`, item)));
    const add = el("button", { type: "button", text: "+", title: "add one (a copy of the last)" });
    const remove = el("button", { type: "button", text: "−", title: "remove the last" });
    add.disabled = s.maxItems !== undefined && items.length >= s.maxItems;
    remove.disabled = items.length <= (s.minItems || 0);
    add.addEventListener("click", () => {
      const list = copy(items);
      list.push(list.length ? copy(list[list.length - 1]) : null);
      onEdit(path, list);
      drawForm();
    });
    remove.addEventListener("click", () => { onEdit(path, items.slice(0, -1)); drawForm(); });
    box.append(el("div", { class: "buttons small" }, add, remove));
    box.append(el("div", { class: "problem", "data-for": path }));
    return box;
  }
  const range = hint(schema);
  return el(
    "div", { class: "field", "data-field": path },
    el("label", { for: `f-${path}` }, ...breakable(name), ...badges),
    input(schema, path, value),
    el("small", { class: "muted", text: [range, description].filter(Boolean).join(" · ") }),
    el("div", { class: "problem", "data-for": path }),
  );
}

// A long parameter name wraps after its underscores, never cut (leaders_destroyed_in_retreat).
function breakable(name) {
  const out = [];
  name.split("_").forEach((part, i) => {
    if (i) out.push("_", el("wbr"));
    out.push(part);
  });
  return out;
}

function drawForm() {
  const form = $("params");
  form.replaceChildren();
  const procedure = state.data.procedure;
  if (!procedure) return;
  state.defs = procedure.schema.$defs || {};
  for (const [key, sub] of Object.entries(procedure.schema.properties || {})) {
    form.append(field(sub, key, key, state.current[key]));
  }
  markChanged();
}

function markChanged() {
  for (const node of document.querySelectorAll("[data-field]")) {
    const path = node.dataset.field;
    node.classList.toggle("changed", !same(getAt(state.base, path), getAt(state.current, path)));
  }
}

function showProblems(problems) {
  for (const node of document.querySelectorAll(".problem")) node.textContent = "";
  const general = $("general");
  general.replaceChildren();
  for (const p of problems || []) {
    const spot = p.field && document.querySelector(`.problem[data-for="${CSS.escape(p.field)}"]`);
    if (spot) spot.textContent = spot.textContent ? `${spot.textContent}\n${p.text}` : p.text;
    else general.append(el("li", { text: p.text }));
  }
}

// ---- drafts, runs and events ----------------------------------------------------------------
function draft() {
  const trials = $("trials").value === "" ? null : Number($("trials").value);
  const seed = $("seed").value === "" ? null : Number($("seed").value);
  return {
    path: state.path, source: state.source, variant: $("variant").value.trim() || "edit",
    overrides: difference(state.base, state.current) || {}, trials, seed,
  };
}

function changed() {
  clearTimeout(state.timer);
  state.timer = setTimeout(async () => {
    // A field left without a new value (a second change event) is no new question.
    if (JSON.stringify(draft()) === state.lastRun) return;
    if ($("auto").checked) requestRun();
    const { data } = await api("POST", "api/draft", draft());
    if (data.text) $("yaml").textContent = data.text;
    $("fragment").textContent = data.fragment || "";
    if (!$("auto").checked) showProblems(data.problems);
  }, 120);
}

function requestRun() {
  state.wantRun = true;
  if (state.running) api("POST", `api/jobs/${state.job}/stop`);
  else startRun();
}

async function startRun() {
  state.wantRun = false;
  state.lastRun = JSON.stringify(draft());
  const { status, data } = await api("POST", "api/run", draft());
  if (status === 422) { showProblems(data.problems); setStatus("invalid: see the fields"); return; }
  if (status !== 200) { setStatus(data.error || `error ${status}`); return; }
  showProblems([]);
  $("yaml").textContent = data.text;
  state.lastText = data.text;
  follow(data.job);
}

function follow(job) {
  state.job = job;
  state.running = true;
  window.sim.job = job;
  $("stop").disabled = false;
  $("download").hidden = true;
  $("showreport").hidden = true;
  $("report").hidden = true;
  $("figures").replaceChildren();
  setStatus(`run ${job}: running`);
  const events = new EventSource(`api/jobs/${job}/events?token=${encodeURIComponent(TOKEN)}`);
  state.events = events;
  events.onmessage = (message) => handle(job, JSON.parse(message.data));
}

function handle(job, event) {
  if (event.type === "start") {
    $("runline").textContent = `running: ${event.trials.toLocaleString()} trials per variant` +
      (event.points > 1 ? ` × ${event.points} sweep points` : "");
    $("bar").style.width = "0%";
  } else if (event.type === "progress") {
    $("bar").style.width = `${Math.min(100, (100 * event.done) / Math.max(event.total, 1))}%`;
    $("runline").textContent = `running: ${event.done.toLocaleString()} of ${event.total.toLocaleString()} trials`;
    if (event.view) draw(event.view);
  } else if (event.type === "result") {
    window.sim.document = event.document;
    window.sim.view = event.view;
    draw(event.view);
    $("bar").style.width = event.view.complete ? "100%" : $("bar").style.width;
    $("runline").textContent = event.view.complete
      ? `complete: ${event.view.trials.toLocaleString()} trials per variant in ${event.view.elapsed} s`
      : `INCOMPLETE: ${event.stopped || "stopped"}; partial results of ` +
        `${event.view.trials.toLocaleString()} trials per variant`;
    $("runline").className = event.view.complete ? "muted" : "incomplete";
    // Why the exact column is missing, when it is (an exact function cut for time, or failing).
    $("exactnote").textContent = event.exact_note || "";
    showFigures(job);
    $("download").href = `api/jobs/${job}/report.zip`;
    $("download").hidden = false;
    $("showreport").hidden = false;
  } else if (event.type === "error") {
    $("runline").textContent = `error: ${event.message}`;
  } else if (event.type === "end") {
    state.events.close();
    state.running = false;
    $("stop").disabled = true;
    setStatus(`run ${job}: ended`);
    if (state.wantRun) startRun();
  }
}

// ---- drawing a view (partial or final) ------------------------------------------------------
function table(header, rows, attrs) {
  return el(
    "table", attrs || {},
    el("thead", {}, el("tr", {}, ...header.map((h) => el("th", { text: h })))),
    el("tbody", {}, ...rows),
  );
}

function fmt(x, kind) {
  if (x === null || x === undefined) return "—";
  if (kind === "proportion") return `${(100 * x).toFixed(2)}%`;
  return Math.abs(x) >= 1000 ? x.toFixed(1) : x.toPrecision(4);
}

function draw(view) {
  const s = view.summary;
  if (s) {
    const rows = s.rows.map((r) => el("tr", { class: r.significant ? "sig" : null },
      ...r.cells.map((c, i) => el("td", { class: i === 0 ? "l" : null, text: c }))));
    $("summary").replaceChildren(
      table(s.header, rows, { id: "summary-table" }),
      el("p", { class: "muted small", text: [s.caption, s.legend].filter(Boolean).join(" · ") }),
    );
    $("verdict").replaceChildren(...s.verdict.map((line) => el("li", { text: line })));
    $("seats").replaceChildren(s.seats.length
      ? table(s.seat_header, s.seats.map((r) => el("tr", {}, ...r.map((c) => el("td", { text: c })))))
      : "");
  } else {
    $("summary").replaceChildren(el("p", { class: "muted", text: "A sweep: its heatmaps are below when it ends, and its grids in the full report." }));
    $("verdict").replaceChildren();
  }
  const exact = view.estimates.some((e) => e.exact !== null && e.exact !== undefined);
  const header = ["variant", "metric", "estimate", "95% interval", "trials", ...(exact ? ["exact"] : [])];
  const rows = view.estimates.map((e) => el("tr", { "data-variant": e.variant, "data-metric": e.metric },
    el("td", { class: "l", text: e.variant }), el("td", { class: "l", text: e.metric }),
    el("td", { class: "estimate", text: fmt(e.mean, e.kind) }),
    el("td", { text: `[${fmt(e.ci_low, e.kind)}, ${fmt(e.ci_high, e.kind)}]` }),
    el("td", { text: e.n.toLocaleString() }),
    exact ? el("td", { text: fmt(e.exact, e.kind) }) : null));
  $("estimates").replaceChildren(table(header, rows, { id: "estimates-table" }));
  const kinds = Object.fromEntries(view.estimates.map((e) => [e.metric, e.kind]));
  const diffs = view.comparisons.map((c) => el("tr", {
    class: c.significant ? "sig" : null, "data-variant": c.variant, "data-metric": c.metric,
  },
  el("td", { class: "l", text: c.variant }), el("td", { class: "l", text: c.metric }),
  el("td", { class: "difference", text: fmtDiff(c.difference, kinds[c.metric]) }),
  el("td", { text: `[${fmtDiff(c.ci_low, kinds[c.metric])}, ${fmtDiff(c.ci_high, kinds[c.metric])}]` }),
  el("td", { text: fmtP(c.p_holm) }),
  el("td", { text: `${c.test}${c.significant ? " *" : ""}` })));
  $("differences").replaceChildren(diffs.length
    ? table(["variant", "metric", "difference", "95% interval", "p (Holm)", "test"], diffs, { id: "differences-table" })
    : el("p", { class: "muted", text: "One variant: change a knob to compare." }));
}

function fmtP(p) {
  if (p === null || p === undefined) return "—";
  if (p === 0) return "<1e-300";
  return p < 1e-3 ? p.toExponential(1) : p.toFixed(p < 0.01 ? 3 : 2);
}

function fmtDiff(x, kind) {
  if (x === null || x === undefined) return "—";
  const sign = x >= 0 ? "+" : "−";
  const v = Math.abs(x);
  return kind === "proportion" ? `${sign}${(100 * v).toFixed(2)} pp` : `${sign}${v.toPrecision(3)}`;
}

// The report's own figures (the forest plot of the differences, a sweep's heatmaps, the
// distributions, a tournament's matchups), drawn by the report writer the CLI uses.
async function showFigures(job) {
  const { status, data } = await api("GET", `api/jobs/${job}/figures`);
  if (status !== 200 || state.job !== job) return;
  $("figures").replaceChildren(...data.figures.map((name) => el("figure", {},
    el("img", { src: `api/jobs/${job}/figures/${encodeURIComponent(name)}`, alt: name, "data-figure": name }),
    el("figcaption", { class: "muted small", text: name.replace(/\.png$/, "").replaceAll("_", " ") }))));
}

function setStatus(text) { $("status").textContent = text; }

// ---- loading and saving ---------------------------------------------------------------------
async function loadList(select) {
  const { data } = await api("GET", "api/scenarios");
  const files = $("files");
  files.replaceChildren(...data.files.map((f) => el("option", { value: f, text: f })));
  const first = select || (data.opened && data.opened[0]) || data.files[0];
  if (first && !data.files.includes(first)) files.append(el("option", { value: first, text: first }));
  if (first) { files.value = first; await load(first); }
}

async function load(path) {
  const variant = "edit";
  const { status, data } = await api("GET", `api/scenario?path=${encodeURIComponent(path)}&variant=${variant}`);
  if (status !== 200) { setStatus(data.error || `error ${status}`); return; }
  state.path = data.path;
  state.source = data.source;
  state.data = data;
  state.base = copy(data.base || {});
  state.current = merge(state.base, data.edits || {});
  $("title").textContent = data.name || data.path;
  const p = data.procedure;
  $("about").textContent = p
    ? `${p.name}: ${p.title} (${p.rules})${data.description ? ` · ${data.description}` : ""}` +
      (data.others.length ? ` · variants in the file: ${data.others.join(", ")}` : "")
    : "unknown procedure";
  $("trials").value = data.trials ?? "";
  $("seed").value = data.seed ?? "";
  $("variant").value = data.variant;
  $("target").value = data.path.replace(/(\.ya?ml)$/, (m) => (data.path.includes("-edited") ? m : `-edited${m}`));
  drawForm();
  showProblems(data.problems);
  setStatus(`opened ${data.path}`);
  const { data: d } = await api("POST", "api/draft", draft());
  $("yaml").textContent = d.text || data.source;
  $("fragment").textContent = d.fragment || "";
  // The file as it is runs at once (with "run on every change"): no knob has to move first.
  if ($("auto").checked && !(data.problems || []).length) requestRun();
}

async function save(overwrite) {
  const body = { ...draft(), target: $("target").value.trim(), overwrite };
  const { status, data } = await api("POST", "api/save", body);
  if (status === 409 && data.exists) {
    if (window.confirm(`${body.target} exists. Overwrite it?`)) return save(true);
    $("saved").textContent = "not saved";
    return;
  }
  if (status === 422) { showProblems(data.problems); $("saved").textContent = "not saved: see the fields"; return; }
  if (status !== 200) { $("saved").textContent = `not saved: ${data.error}`; return; }
  $("saved").textContent = `saved ${data.saved} (${data.bytes} bytes)`;
  const files = $("files");
  if (![...files.options].some((o) => o.value === data.saved)) {
    files.append(el("option", { value: data.saved, text: data.saved }));
  }
}

async function copyFragment() {
  const text = $("fragment").textContent;
  try {
    await navigator.clipboard.writeText(text);
    $("saved").textContent = "params: fragment copied";
  } catch (e) {
    const range = document.createRange();
    range.selectNodeContents($("fragment"));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    $("saved").textContent = "params: fragment selected: copy it with Ctrl-C";
  }
}

function wire() {
  $("files").addEventListener("change", () => load($("files").value));
  $("run").addEventListener("click", () => requestRun());
  $("stop").addEventListener("click", () => { state.wantRun = false; api("POST", `api/jobs/${state.job}/stop`); });
  $("reset").addEventListener("click", () => { state.current = copy(state.base); drawForm(); changed(); });
  for (const id of ["trials", "seed", "variant"]) $(id).addEventListener("change", changed);
  $("save").addEventListener("click", () => save(false));
  $("copy").addEventListener("click", copyFragment);
  $("showreport").addEventListener("click", () => {
    $("report").src = `api/jobs/${state.job}/report.html`;
    $("report").hidden = false;
  });
  loadList();
}

document.addEventListener("DOMContentLoaded", wire);
