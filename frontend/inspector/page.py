"""The inspector page: one HTML document with its style and script inline, no build step and no
third-party code. Data is only ever put into the page as text (``textContent``), never as markup."""

from __future__ import annotations

__all__ = ["PAGE"]

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>promptwire inspector</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f4; }
  header { display: flex; gap: 1em; align-items: center; padding: .6em 1em; background: #24292f; color: #fff; }
  header h1 { font-size: 1.05em; margin: 0; font-weight: 600; }
  header select { font: inherit; }
  #status { margin-left: auto; font-size: .85em; opacity: .8; }
  main { padding: .8em 1em; }
  section { margin-bottom: 1em; }
  h2 { font-size: .95em; margin: .4em 0; text-transform: uppercase; letter-spacing: .04em; color: #555; }
  #calls button { font: inherit; margin: 0 .3em .3em 0; padding: .25em .6em; border: 1px solid #bbb;
                  border-radius: 4px; background: #fff; cursor: pointer; }
  #calls button[aria-pressed="true"] { background: #0969da; color: #fff; border-color: #0969da; }
  #formats label { margin-right: .9em; white-space: nowrap; }
  #columns { display: flex; gap: .8em; align-items: stretch; overflow-x: auto; }
  .column { flex: 1 0 26em; max-width: 48em; background: #fff; border: 1px solid #d0d7de; border-radius: 6px;
            display: flex; flex-direction: column; }
  .column h3 { margin: 0; padding: .4em .6em; font-size: .95em; border-bottom: 1px solid #d0d7de;
               display: flex; gap: .6em; align-items: baseline; }
  .column h3 .counts { margin-left: auto; font-weight: normal; font-size: .8em; color: #666; }
  pre { margin: 0; padding: .6em; white-space: pre-wrap; word-break: break-word; font: 12.5px/1.45 ui-monospace, monospace; }
  .warnings, .notes { margin: 0; padding: .3em .6em .3em 1.8em; background: #fff8c5; font-size: .85em; }
  .notes { background: #ddf4ff; }
  table { border-collapse: collapse; background: #fff; }
  td, th { border: 1px solid #d0d7de; padding: .25em .6em; text-align: left; font-size: .9em; }
  tr.clipped td { background: #fff1e5; }
  .badge { display: inline-block; padding: 0 .45em; border-radius: 1em; font-size: .8em; background: #bc4c00; color: #fff; }
  #error { display: none; background: #fff; border: 2px solid #cf222e; border-radius: 6px; }
  #error h2 { color: #cf222e; padding: .4em .6em 0; }
  #diff-output .add { background: #dafbe1; } #diff-output .del { background: #ffebe9; } #diff-output .hunk { color: #8250df; }
  select, button { font: inherit; }
</style>
</head>
<body>
<header>
  <h1>promptwire inspector</h1>
  <select id="programs" aria-label="program"></select>
  <span id="status">loading…</span>
</header>
<main>
  <section id="error" role="alert"><h2>Error</h2><pre id="error-text"></pre></section>
  <section id="calls-section"><h2>Model calls</h2><div id="calls"></div></section>
  <section><h2>Formats</h2><div id="formats"></div></section>
  <section><div id="columns"></div></section>
  <section><h2>Context</h2><table id="context"><thead><tr><th>item</th><th>source</th><th>budget</th>
    <th>shown / full (UTF-16 units)</th><th></th></tr></thead><tbody></tbody></table></section>
  <section><h2>Diff</h2>
    <select id="diff-a" aria-label="diff from"></select> → <select id="diff-b" aria-label="diff to"></select>
    <button id="diff-run">Diff</button>
    <pre id="diff-output"></pre>
  </section>
</main>
<script>
"use strict";
const $ = (selector) => document.querySelector(selector);
const DEFAULT_SHOWN = ["agentscript", "messages", "request:openai"];
let current = { file: null, version: null, state: null, call: 0, shown: new Set(DEFAULT_SHOWN), status: "" };

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

async function getJson(url) {
  const answer = await fetch(url, { cache: "no-store" });
  if (!answer.ok) throw new Error(await answer.text());
  return answer.json();
}

function views(state) {
  const names = state.formats.map((name) => ({ key: name, label: name }));
  return names.concat(state.providers.map((p) => ({ key: "request:" + p, label: p + " request" })));
}

function renderPrograms(names) {
  const picker = $("#programs");
  picker.replaceChildren(...names.map((name) => { const o = element("option", name); o.value = name; return o; }));
  picker.hidden = names.length < 2;
  picker.value = current.file;
}

function samePrograms(names) {
  const shown = Array.from($("#programs").options, (option) => option.value);
  return shown.length === names.length && shown.every((name, index) => name === names[index]);
}

function renderState() {
  const state = current.state;
  const error = $("#error");
  error.style.display = state.error ? "block" : "none";
  $("#error-text").textContent = state.error ? state.error.text : "";
  for (const key of ["line", "column"]) {
    if (state.error && state.error[key] !== null) error.dataset[key] = state.error[key]; else delete error.dataset[key];
  }
  if (current.call >= state.calls.length) current.call = 0;
  const calls = state.calls.map((call, index) => {
    const button = element("button", call.title.replace(/^=== | ===$/g, ""));
    button.className = "call";
    button.setAttribute("aria-pressed", String(index === current.call));
    button.addEventListener("click", () => { current.call = index; renderState(); });
    return button;
  });
  $("#calls").replaceChildren(...calls);
  const formatBoxes = views(state).map((view) => {
    const label = element("label");
    const box = element("input");
    box.type = "checkbox"; box.name = "format"; box.value = view.key; box.checked = current.shown.has(view.key);
    box.addEventListener("change", () => {
      if (box.checked) current.shown.add(view.key); else current.shown.delete(view.key);
      renderState();
    });
    label.append(box, " " + view.label);
    return label;
  });
  $("#formats").replaceChildren(...formatBoxes);
  const call = state.calls[current.call];
  $("#columns").replaceChildren(...(call ? views(state).filter((v) => current.shown.has(v.key)).map((v) => column(call, v)) : []));
  const rows = (call ? call.context : []).map((item, index) => {
    const row = element("tr", null, item.clipped ? "item clipped" : "item");
    const badge = item.clipped ? element("span", "clipped", "badge") : element("span", "");
    row.append(element("td", item.label ?? String(index)), element("td", item.source ?? ""),
               element("td", item.budget_text ?? "none"), element("td", item.shown + " / " + item.original));
    const cell = element("td"); cell.append(badge); row.append(cell);
    return row;
  });
  $("#context tbody").replaceChildren(...rows);
  renderDiffChoices(state, call);
}

function column(call, view) {
  const box = element("div", null, "column");
  box.dataset.format = view.key;
  const head = element("h3", view.label);
  if (view.key.startsWith("request:")) {
    const request = call.requests[view.key.slice(8)];
    head.append(element("span", request.model ?? "", "counts"));
    box.append(head);
    if (request.notes && request.notes.length) {
      const notes = element("ul", null, "notes");
      request.notes.forEach((note) => notes.append(element("li", note)));
      box.append(notes);
    }
    box.append(element("pre", request.error ?? JSON.stringify(request.body, null, 2), "render"));
    return box;
  }
  const render = call.renders[view.key];
  if (render.error) { box.append(head, element("pre", render.error, "render")); return box; }
  head.append(element("span", render.chars + " chars · " + render.utf16 + " UTF-16", "counts"));
  box.append(head);
  if (render.warnings.length) {
    const warnings = element("ul", null, "warnings");
    warnings.append(element("li", "cannot express, left out: " + render.warnings.join(", ")));
    box.append(warnings);
  }
  box.append(element("pre", render.display, "render"));
  return box;
}

function renderDiffChoices(state, call) {
  const keys = views(state).map((v) => v.key).concat(Object.keys(call ? call.stored : {}).map((f) => "stored:" + f));
  for (const id of ["#diff-a", "#diff-b"]) {
    const picker = $(id);
    const keep = picker.value;
    picker.replaceChildren(...keys.map((key) => { const o = element("option", key); o.value = key; return o; }));
    if (keys.includes(keep)) picker.value = keep;
  }
  if (!$("#diff-a").value) $("#diff-a").value = keys[0];
  if ($("#diff-b").selectedIndex <= 0 && keys.length > 1 && $("#diff-b").value === keys[0]) $("#diff-b").value = keys[1];
}

async function runDiff() {
  const query = new URLSearchParams({ file: current.file, call: current.call, a: $("#diff-a").value, b: $("#diff-b").value });
  const output = $("#diff-output");
  try {
    const { diff } = await getJson("/api/diff?" + query);
    const lines = (diff || "(no difference)\\n").split("\\n").slice(0, -1).map((line) => {
      const kind = line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
      return element("div", line, kind);
    });
    output.replaceChildren(...lines);
  } catch (problem) {
    output.textContent = String(problem.message);
  }
}

async function load(file) {
  current.file = file;
  current.state = await getJson("/api/state?" + new URLSearchParams({ file }));
  current.version = current.state.version;
  renderState();
  current.status = file + " · updated " + new Date().toLocaleTimeString();
  $("#status").textContent = current.status;
}

async function poll() {
  try {
    const { version, programs } = await getJson("/api/version?" + new URLSearchParams({ file: current.file }));
    if (!samePrograms(programs)) renderPrograms(programs);
    if (version !== current.version) await load(current.file);
    else $("#status").textContent = current.status;
  } catch (problem) {
    // the program may be gone: the picker shows what is left before the status line says why
    try { renderPrograms(await getJson("/api/programs")); } catch (ignored) { /* still down: poll again */ }
    // fetch throws a TypeError when no answer came; an answer that is not OK carries the server's reason
    $("#status").textContent = problem instanceof TypeError ? "server unreachable" : problem.message;
  }
  setTimeout(poll, 500);
}

async function start() {
  const names = await getJson("/api/programs");
  current.file = names[0];
  renderPrograms(names);
  $("#programs").addEventListener("change", (event) => { current.call = 0; load(event.target.value); });
  $("#diff-run").addEventListener("click", runDiff);
  await load(current.file);
  setTimeout(poll, 500);
}
start();
</script>
</body>
</html>
"""
