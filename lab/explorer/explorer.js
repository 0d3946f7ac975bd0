// explorer.js — the attention explorer's behaviour (inlined into explorer.html).
//
// A head view in the manner of bertviz: queries in the left column, keys in the
// right, one line per (head, query, key) whose weight is not 0 at the data's
// precision, in the head's colour with opacity = weight. Selecting a token (hover,
// click, or the URL fragment) keeps only its lines in the drawing: a query's lines
// out, or a key's lines in. Hidden lines are not in the DOM at all, so what the
// page shows is exactly the set of <line class="attn"> elements, each carrying
// data-head, data-from (query), data-to (key) and data-weight — what
// tools/browser_test.cpp reads back from Chromium's --dump-dom.
//
// The view is one state object, drawn by render(); every control only changes the
// state and calls render(), and render() writes the state back into the URL
// fragment. Errors (a bad fragment, or any exception) are written into #error,
// which the browser test requires to be empty.
//
// Numbers on the page: sentences, layers and heads are numbered from 1 (sentence 1
// is the first line of data/toy_sequences.txt; "layer 1, head 1" as in every figure),
// token positions from 0 (<bos> is token 0, as in the tensors and phase 4's position i).
// The fragment uses exactly the numbers the page shows, so an address reads like the
// view: model=<key> sentence=N layer=N head=N[,N...] (the heads shown; default all)
// token=N (a query) key=N (a key). The state, the data and the data-* attributes of
// the drawing hold array indices from 0; only labels and the fragment add 1.
"use strict";

const errorBox = document.getElementById("error");
function reportError(message) {
  errorBox.textContent += (errorBox.textContent ? "\n" : "") + message;
}
window.addEventListener("error", (event) => reportError(`script error: ${event.message} (line ${event.lineno})`));

const svgNS = "http://www.w3.org/2000/svg";
const data = JSON.parse(document.getElementById("attention-data").textContent);
const decimals = data.decimals;

// The whole view. selection: null or {side: "query" | "key", index}; hover overrides it while the pointer is on a token.
const state = { model: 0, sentence: 0, layer: 0, heads: [], selection: null, hover: null };

const model = () => data.models[state.model];
const tokens = () => data.sentences[state.sentence].tokens;
const weights = (head) => model().attention[state.sentence][state.layer][head];  // [query][key]
const headColor = (head) => data.head_colors[head % data.head_colors.length];
const shownHeads = () => state.heads.flatMap((on, h) => (on ? [h] : []));  // indices from 0

function element(name, attributes = {}, text = "") {
  const ns = ["svg", "line", "text", "rect", "g", "title"].includes(name) ? svgNS : null;
  const node = ns ? document.createElementNS(ns, name) : document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== "") node.textContent = text;
  return node;
}

// ---- the URL fragment -------------------------------------------------------

// The array index of the thing numbered `text`, where the page numbers `count` things from `first` (0 or 1).
function parseNumber(key, text, count, what, first) {
  if (!/^\d+$/.test(text)) throw new Error(`${key}=${text} is not a number`);
  const number = Number(text);
  if (number < first || number >= first + count)
    throw new Error(`${key}=${number} is out of range: ${what} runs from ${first} to ${first + count - 1}`);
  return number - first;
}
const parseOrdinal = (key, text, count, what) => parseNumber(key, text, count, what, 1);   // sentence, layer, head
const parsePosition = (key, text, count, what) => parseNumber(key, text, count, what, 0);  // token, key

// The view a fragment describes, starting from the defaults; throws Error naming the first bad key.
function readFragment(hash) {
  const view = { model: 0, sentence: 0, layer: 0, heads: [], selection: null };
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  for (const key of params.keys())
    if (!["model", "sentence", "layer", "head", "token", "key"].includes(key))
      throw new Error(`unknown key '${key}' (model, sentence, layer, head, token, key)`);
  if (params.has("model")) {
    view.model = data.models.findIndex((m) => m.key === params.get("model"));
    if (view.model < 0) throw new Error(`model=${params.get("model")}: the page has ${data.models.map((m) => m.key).join(", ")}`);
  }
  const m = data.models[view.model];
  if (params.has("sentence")) view.sentence = parseOrdinal("sentence", params.get("sentence"), data.sentences.length, "the sentence list");
  if (params.has("layer")) view.layer = parseOrdinal("layer", params.get("layer"), m.n_layers, `${m.name}'s layer list`);
  view.heads = Array(m.n_heads).fill(!params.has("head"));
  if (params.has("head"))
    for (const part of params.get("head").split(",")) view.heads[parseOrdinal("head", part, m.n_heads, `${m.name}'s head list`)] = true;
  if (params.has("token") && params.has("key")) throw new Error("token= and key= each select a token: give one of them");
  const n = data.sentences[view.sentence].tokens.length;
  if (params.has("token")) view.selection = { side: "query", index: parsePosition("token", params.get("token"), n, "the sentence") };
  if (params.has("key")) view.selection = { side: "key", index: parsePosition("key", params.get("key"), n, "the sentence") };
  return view;
}

// Shows the fragment's view, or reports why it cannot and shows the default view.
function applyFragment(hash) {
  try {
    Object.assign(state, readFragment(hash));
  } catch (e) {
    reportError(`URL fragment ${hash}: ${e.message}`);
    Object.assign(state, readFragment(""));
  }
  render();
}

function fragment() {
  const parts = [`model=${model().key}`, `sentence=${state.sentence + 1}`, `layer=${state.layer + 1}`];
  if (!state.heads.every(Boolean)) parts.push(`head=${shownHeads().map((h) => h + 1).join(",")}`);
  if (state.selection) parts.push(`${state.selection.side === "query" ? "token" : "key"}=${state.selection.index}`);
  return "#" + parts.join("&");
}

// ---- controls ---------------------------------------------------------------

const sentenceSelect = document.getElementById("sentence");
const layerSelect = document.getElementById("layer");
const modelField = document.getElementById("model");
const headField = document.getElementById("heads");

function buildControls() {
  data.sentences.forEach((s, i) => sentenceSelect.append(element("option", { value: i }, `${i + 1}: ${s.text}`)));
  sentenceSelect.addEventListener("change", () => {
    state.sentence = Number(sentenceSelect.value);
    state.selection = null;  // token positions mean something else in another sentence
    render();
  });
  // The causal/bidirectional switch, shown only when the page holds more than one model.
  modelField.hidden = data.models.length < 2;
  data.models.forEach((m, i) => {
    const label = element("label", { title: m.description });
    const radio = element("input", { type: "radio", name: "model", value: i });
    radio.addEventListener("change", () => {
      state.model = i;
      state.layer = Math.min(state.layer, m.n_layers - 1);
      state.heads = Array.from({ length: m.n_heads }, (_, h) => state.heads[h] ?? true);
      render();
    });
    label.append(radio, ` ${m.key}`);
    modelField.append(label);
  });
  layerSelect.addEventListener("change", () => { state.layer = Number(layerSelect.value); render(); });
}

// Controls whose options depend on the model (layers, heads) are rebuilt on every render.
function syncControls() {
  sentenceSelect.value = String(state.sentence);
  modelField.querySelectorAll("input").forEach((r) => { r.checked = Number(r.value) === state.model; });
  layerSelect.replaceChildren(...Array.from({ length: model().n_layers }, (_, l) => element("option", { value: l }, `${l + 1}`)));
  layerSelect.value = String(state.layer);
  headField.querySelectorAll("button").forEach((b) => b.remove());
  state.heads.forEach((on, h) => {
    const button = element("button", { type: "button", class: "head", "aria-pressed": on, style: `--c: ${headColor(h)}` }, `head ${h + 1}`);
    button.addEventListener("click", () => { state.heads[h] = !state.heads[h]; render(); });
    button.addEventListener("dblclick", () => { state.heads = state.heads.map((_, k) => k === h); render(); });
    headField.append(button);
  });
}

// ---- drawing ----------------------------------------------------------------

const svg = document.getElementById("view");
const tooltip = document.getElementById("tooltip");
const rowHeight = 28, headerHeight = 44, textWidth = 150, gap = 200, pad = 12;

function tokenGroup(side, index, x, y, anchor) {
  const selected = state.selection && state.selection.side === side && state.selection.index === index;
  const g = element("g", { class: "token" + (selected ? " selected" : ""), "data-side": side, "data-index": index });
  const left = anchor === "end" ? x - textWidth : x;
  g.append(element("rect", { x: left - 4, y: y - rowHeight / 2 + 2, width: textWidth + 8, height: rowHeight - 4 }),
           element("text", { x, y, "text-anchor": anchor }, tokens()[index]));
  // Hovering redraws only the lines, so the token under the pointer stays the same element.
  g.addEventListener("mouseenter", () => { state.hover = { side, index }; drawLines(); });
  g.addEventListener("mouseleave", () => { state.hover = null; drawLines(); });
  g.addEventListener("click", () => {
    state.selection = selected ? null : { side, index };
    state.hover = null;
    render();
  });
  return g;
}

// Which (head, query, key) lines a selection shows: every line of a head shown whose weight is not 0.
function visibleLines(selection) {
  const lines = [];
  state.heads.forEach((on, head) => {
    if (!on) return;
    weights(head).forEach((row, query) => row.forEach((w, key) => {
      if (w === 0) return;
      if (selection && (selection.side === "query" ? query : key) !== selection.index) return;
      lines.push({ head, query, key, w });
    }));
  });
  return lines;
}

const xQuery = pad + textWidth, xKey = xQuery + gap;
const rowY = (i) => headerHeight + rowHeight * (i + 0.5);

// The frame: headings, an empty group for the lines, and the two token columns (drawn over the lines).
function drawTokens() {
  const n = tokens().length;
  svg.setAttribute("width", xKey + textWidth + pad);
  svg.setAttribute("height", headerHeight + rowHeight * n + pad);
  svg.replaceChildren(element("text", { class: "heading", x: xQuery, y: 16, "text-anchor": "end" }, "query (attending from)"),
                      element("text", { class: "heading", x: xKey, y: 16 }, "key (attended to)"),
                      element("g", { class: "lines" }));
  for (let i = 0; i < n; ++i) svg.append(tokenGroup("query", i, xQuery, rowY(i), "end"), tokenGroup("key", i, xKey, rowY(i), "start"));
}

function drawLines() {
  const H = state.heads.length;
  const selection = state.hover ?? state.selection;
  const group = svg.querySelector("g.lines");
  group.replaceChildren();
  for (const { head, query, key, w } of visibleLines(selection)) {
    const dy = (head - (H - 1) / 2) * 2;  // heads side by side, so coinciding lines stay apart
    const line = element("line", {
      class: "attn", x1: xQuery + 8, y1: rowY(query) + dy, x2: xKey - 8, y2: rowY(key) + dy,
      stroke: headColor(head), "stroke-opacity": w,
      "data-head": head, "data-from": query, "data-to": key, "data-weight": w.toFixed(decimals),
    });
    const label = `head ${head + 1}: ${tokens()[query]} (${query}) → ${tokens()[key]} (${key}) = ${w.toFixed(decimals)}`;
    line.append(element("title", {}, label));
    line.addEventListener("mousemove", (event) => {
      tooltip.textContent = label;
      tooltip.style.left = `${event.clientX + 14}px`;
      tooltip.style.top = `${event.clientY + 14}px`;
      tooltip.hidden = false;
    });
    line.addEventListener("mouseleave", () => { tooltip.hidden = true; });
    group.append(line);
  }
  drawDetail(selection);
}

// The selected token's weights as a table: one row per token on the other side, one column per head shown.
function drawDetail(selection) {
  const detail = document.getElementById("detail");
  if (!selection) {
    detail.replaceChildren(element("h2", {}, "Weights"),
                           element("p", {}, "Select a token to list its attention weights per head."));
    return;
  }
  const shown = shownHeads();
  const word = tokens()[selection.index];
  const fromQuery = selection.side === "query";
  const heading = fromQuery ? `Query ${selection.index} “${word}” attends to` : `Key ${selection.index} “${word}” is attended to by`;
  const table = element("table");
  const header = element("tr");
  header.append(element("th", {}, fromQuery ? "key" : "query"));
  for (const h of shown) header.append(element("th", { style: `color: ${headColor(h)}` }, `head ${h + 1}`));
  table.append(header);
  tokens().forEach((other, k) => {
    const tr = element("tr");
    tr.append(element("td", {}, `${k} ${other}`));
    const [query, key] = fromQuery ? [selection.index, k] : [k, selection.index];
    for (const h of shown) {
      const masked = model().causal && key > query;  // the causal mask gave this pair exactly 0
      tr.append(element("td", masked ? { class: "masked" } : {}, masked ? "masked" : weights(h)[query][key].toFixed(decimals)));
    }
    table.append(tr);
  });
  detail.replaceChildren(element("h2", {}, heading), table);
}

function render() {
  syncControls();
  drawTokens();
  drawLines();
  const lineCount = svg.querySelectorAll("line.attn").length;
  const shown = shownHeads().map((h) => h + 1);
  const sel = state.selection;
  document.getElementById("status").textContent =
    `${model().name} (${model().causal ? "causal" : "bidirectional"}), sentence ${state.sentence + 1}, layer ${state.layer + 1}, ` +
    `${shown.length ? "head " + shown.join(", ") : "no head"}${sel ? `, ${sel.side} ${sel.index} “${tokens()[sel.index]}”` : ""}: ` +
    `${lineCount} lines`;
  if (location.hash !== fragment()) history.replaceState(null, "", fragment());
}

window.addEventListener("hashchange", () => {
  if (location.hash !== fragment()) applyFragment(location.hash);  // not our own replaceState
});

try {
  buildControls();
  applyFragment(location.hash);
} catch (e) {
  reportError(`explorer: ${e.message}`);
}
