// explorer.js — the attention explorer's views (inlined into explorer.html after model.js).
//
// The page runs the models itself (model.js): type a text, and every view below is
// computed from the weights on the spot. A text with a word (or, for a character
// model, a character) the model does not know is not run: #unknown names each such
// word with the nearest words the model knows, as phase 3's --sentence does.
//
// Four views of one (model, text):
//   head view   bertviz's: queries left, keys right, one line per (head, query, key)
//               whose weight shows as more than 0 at 4 decimals, in the head's colour
//               with opacity = weight, for the chosen layer and heads. Selecting a token
//               (hover, click, or the URL fragment) keeps only its lines. Hidden lines are
//               not in the DOM, so what the page shows is exactly the set of
//               <line class="attn"> elements, each carrying data-head, data-from (query),
//               data-to (key) and data-weight (full precision) — what
//               tools/browser_test.cpp reads back from Chromium's --dump-dom.
//   model view  every layer (rows) × head (columns) at once, one small heatmap each;
//               click one to study it in the head and neuron views.
//   neuron view for one head, query and key: q and k element by element, their products,
//               the score q·k, the scaled score and the softmax (or sparsemax) weight,
//               beside the query's whole row (how the normalizer shares the weight out).
//   predictions each position's most likely tokens from the logits (next token for a
//               causal model, the token itself for a masked-token one).
// The "weights | dL/dA" toggle (gradients.js) swaps the head view for heatmaps of the
// loss's gradient with respect to the weights, on the listed sentences, and colours the
// model view by it too.
// "All numbers" holds every model's logits and weights on the text as JSON (#numbers-json) to copy.
//
// The view is one state object, drawn by render(); every control only changes the
// state and calls render(), and render() writes the state back into the URL fragment.
// Errors (a bad fragment, or any exception) are written into #error, which the browser
// test requires to be empty.
//
// Numbers on the page: sentences, layers and heads are numbered from 1 (sentence 1 is
// the first listed; "layer 1, head 1" as in every figure), token positions from 0
// (<bos> is token 0, as in the tensors and phase 4's position i). The fragment uses
// exactly the numbers the page shows, so an address reads like the view:
//   model=<key>  sentence=N (a listed sentence) or text=... (any text)  layer=N
//   head=N[,N...] (the heads shown; default all)  token=N (a query) or key=N (a key)
//   neuron=H,Q,K (the neuron view's head, query and key)  numbers=1 (open "All numbers")
//   view=gradients (the dL/dA view; view=weights, the default, is the head view)
// The state and the data-* attributes hold array indices from 0; only labels and the
// fragment add 1.
"use strict";

const errorBox = document.getElementById("error");
function reportError(message) {
  errorBox.textContent += (errorBox.textContent ? "\n" : "") + message;
}
window.addEventListener("error", (event) => reportError(`script error: ${event.message} (line ${event.lineno})`));

const svgNS = "http://www.w3.org/2000/svg";
const data = JSON.parse(document.getElementById("attention-data").textContent);
const decimals = data.decimals;

// The whole view. sentence: a listed sentence's index, or -1 for typed text. selection: null or
// {side: "query" | "key", index}; hover overrides it while the pointer is on a token.
const state = { model: 0, sentence: 0, text: "", layer: 0, heads: [], selection: null, hover: null,
                neuron: { head: 0, query: 0, key: 0 }, numbers: false, view: "weights" };

const model = () => data.models[state.model];
const live = (m) => typeof m.weights === "string";
const headColor = (head) => data.head_colors[head % data.head_colors.length];
const shownHeads = () => state.heads.flatMap((on, h) => (on ? [h] : []));  // indices from 0
const shownWeight = (w) => w.toFixed(decimals) !== (0).toFixed(decimals);  // drawn: more than 0 at the page's precision
// A token as a label: a character model's whitespace made visible.
const label = (t) => (t === " " ? "␣" : t === "\n" ? "\\n" : t === "\t" ? "\\t" : t);

function element(name, attributes = {}, text = "") {
  const ns = ["svg", "line", "text", "rect", "g", "title"].includes(name) ? svgNS : null;
  const node = ns ? document.createElementNS(ns, name) : document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== "") node.textContent = text;
  return node;
}

// ---- what the model does on the text -------------------------------------------

const tensorCache = new Map();   // model index -> its decoded tensors
const analysisCache = new Map(); // "model|text" -> analysis

// {tokens, ids, logits, layers: [l] {q, k, scores, weights}} for the current model and text,
// or {problem: "..."} saying why it cannot be shown. A recorded model has only weights.
const analysis = () => analyse(state.model, state.text);

function analyse(index, text) {
  const key = `${index}|${text}`;
  if (!analysisCache.has(key)) analysisCache.set(key, run(index, text));
  return analysisCache.get(key);
}

function run(index, text) {
  const m = data.models[index];
  if (!live(m)) {
    const s = data.sentences.findIndex((x) => x.text === text);
    if (s < 0) return { problem: `${m.name}: this page holds recorded weights for its listed sentences only; ` +
                                  "`tinygpt show --checkpoint` writes one that runs the model on any text" };
    return { tokens: data.sentences[s].tokens, layers: m.attention[s].map((heads) => ({ weights: heads })) };
  }
  const words = m.vocab.filter((w) => !/^[<[]/.test(w));  // the special tokens are no suggestion
  const t = tokenize(m, text);
  if (t.unknown) {
    const unit = m.tokenizer.unit === "char" ? "character" : "word";
    return { unknown: t.unknown, problem: t.unknown.map((w) => `${m.name} does not know the ${unit} “${label(w)}”` +
             (unit === "word" ? `; nearest known words: ${nearestWords(w, words, 5).join(", ")}` : "")).join("\n") };
  }
  if (t.tokens.length === m.tokenizer.prefix.length + m.tokenizer.suffix.length) return { problem: "Type a text to run the model on." };
  if (t.tokens.length > m.config.context)
    return { problem: `${t.tokens.length} tokens, but ${m.name} reads at most ${m.config.context} (its context)` };
  if (!tensorCache.has(index)) tensorCache.set(index, loadTensors(m));
  return { ...t, ...forward(m, tensorCache.get(index), t.ids) };
}

const weights = (head) => analysis().layers[state.layer].weights[head];  // [query][key]
const tokens = () => analysis().tokens;
const masked = (query, key) => (live(model()) ? !allowed(model(), query, key) : model().causal && key > query);

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

const fragmentKeys = ["model", "sentence", "text", "layer", "head", "token", "key", "neuron", "numbers", "view"];

// The view a fragment describes, starting from the defaults; throws Error naming the first bad key.
function readFragment(hash) {
  const view = { model: 0, sentence: 0, text: data.sentences.length ? data.sentences[0].text : "", layer: 0, heads: [],
                 selection: null, neuron: null, numbers: false, view: "weights" };
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  for (const key of params.keys())
    if (!fragmentKeys.includes(key)) throw new Error(`unknown key '${key}' (${fragmentKeys.join(", ")})`);
  if (params.has("model")) {
    view.model = data.models.findIndex((m) => m.key === params.get("model"));
    if (view.model < 0) throw new Error(`model=${params.get("model")}: the page has ${data.models.map((m) => m.key).join(", ")}`);
  }
  const m = data.models[view.model];
  if (params.has("sentence") && params.has("text")) throw new Error("sentence= and text= each choose the text: give one of them");
  if (params.has("sentence")) {
    view.sentence = parseOrdinal("sentence", params.get("sentence"), data.sentences.length, "the sentence list");
    view.text = data.sentences[view.sentence].text;
  }
  if (params.has("text")) {
    view.text = params.get("text");
    view.sentence = data.sentences.findIndex((s) => s.text === view.text);
  }
  if (params.has("layer")) view.layer = parseOrdinal("layer", params.get("layer"), m.n_layers, `${m.name}'s layer list`);
  view.heads = Array(m.n_heads).fill(!params.has("head"));
  if (params.has("head"))
    for (const part of params.get("head").split(",")) view.heads[parseOrdinal("head", part, m.n_heads, `${m.name}'s head list`)] = true;
  if (params.has("token") && params.has("key")) throw new Error("token= and key= each select a token: give one of them");
  const result = analyse(view.model, view.text);  // positions are checked against the text's tokens
  const n = result.problem ? 0 : result.tokens.length;
  if (params.has("token")) view.selection = { side: "query", index: parsePosition("token", params.get("token"), n, "the text's tokens") };
  if (params.has("key")) view.selection = { side: "key", index: parsePosition("key", params.get("key"), n, "the text's tokens") };
  if (params.has("neuron")) {
    const parts = params.get("neuron").split(",");
    if (parts.length !== 3) throw new Error(`neuron=${params.get("neuron")}: give head,query,key (e.g. neuron=1,3,2)`);
    view.neuron = { head: parseOrdinal("neuron head", parts[0], m.n_heads, `${m.name}'s head list`),
                    query: parsePosition("neuron query", parts[1], n, "the text's tokens"),
                    key: parsePosition("neuron key", parts[2], n, "the text's tokens") };
  }
  view.numbers = params.get("numbers") === "1";
  if (params.has("view")) {
    view.view = params.get("view");
    if (!["weights", "gradients"].includes(view.view)) throw new Error(`view=${view.view}: give view=weights or view=gradients`);
  }
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
  const parts = [`model=${model().key}`];
  parts.push(state.sentence >= 0 ? `sentence=${state.sentence + 1}` : `text=${encodeURIComponent(state.text)}`);
  parts.push(`layer=${state.layer + 1}`);
  if (!state.heads.every(Boolean)) parts.push(`head=${shownHeads().map((h) => h + 1).join(",")}`);
  if (state.selection) parts.push(`${state.selection.side === "query" ? "token" : "key"}=${state.selection.index}`);
  if (state.neuron && live(model())) parts.push(`neuron=${state.neuron.head + 1},${state.neuron.query},${state.neuron.key}`);
  if (state.numbers) parts.push("numbers=1");
  if (state.view === "gradients") parts.push("view=gradients");
  return "#" + parts.join("&");
}

// ---- controls ---------------------------------------------------------------

const textInput = document.getElementById("text");
const sentenceSelect = document.getElementById("sentence");
const layerSelect = document.getElementById("layer");
const modelField = document.getElementById("model");
const headField = document.getElementById("heads");

// A new text or model: token positions mean something else now.
function newText() {
  state.selection = null;
  state.neuron = null;
}

function buildControls() {
  sentenceSelect.append(element("option", { value: -1 }, "(your own text)"));
  data.sentences.forEach((s, i) => sentenceSelect.append(element("option", { value: i }, `${i + 1}: ${s.text}`)));
  sentenceSelect.addEventListener("change", () => {
    state.sentence = Number(sentenceSelect.value);
    if (state.sentence >= 0) state.text = data.sentences[state.sentence].text;
    newText();
    render();
  });
  textInput.addEventListener("input", () => {
    state.text = textInput.value;
    state.sentence = data.sentences.findIndex((s) => s.text === state.text);
    newText();
    render();
  });
  document.getElementById("controls").addEventListener("submit", (event) => event.preventDefault());
  // The causal/bidirectional switch, shown only when the page holds more than one model.
  modelField.hidden = data.models.length < 2;
  data.models.forEach((m, i) => {
    const labelNode = element("label", { title: m.description });
    const radio = element("input", { type: "radio", name: "model", value: i });
    radio.addEventListener("change", () => {
      state.model = i;
      state.layer = Math.min(state.layer, m.n_layers - 1);
      state.heads = Array.from({ length: m.n_heads }, (_, h) => state.heads[h] ?? true);
      newText();
      render();
    });
    labelNode.append(radio, ` ${m.key}`);
    modelField.append(labelNode);
  });
  layerSelect.addEventListener("change", () => { state.layer = Number(layerSelect.value); render(); });
  const numbers = document.getElementById("numbers-toggle");
  numbers.addEventListener("change", () => { state.numbers = numbers.checked; render(); });
  for (const view of ["weights", "gradients"])
    document.getElementById(`show-${view}`).addEventListener("click", () => { state.view = view; render(); });
}

// Controls whose options depend on the model (layers, heads) are rebuilt on every render.
function syncControls() {
  if (textInput.value !== state.text) textInput.value = state.text;
  textInput.disabled = !live(model());
  sentenceSelect.value = String(state.sentence);
  modelField.querySelectorAll("input").forEach((r) => { r.checked = Number(r.value) === state.model; });
  layerSelect.replaceChildren(...Array.from({ length: model().n_layers }, (_, l) => element("option", { value: l }, `${l + 1}`)));
  layerSelect.value = String(state.layer);
  for (const view of ["weights", "gradients"]) document.getElementById(`show-${view}`).setAttribute("aria-pressed", state.view === view);
  headField.querySelectorAll("button").forEach((b) => b.remove());
  state.heads.forEach((on, h) => {
    const button = element("button", { type: "button", class: "head", "aria-pressed": on, style: `--c: ${headColor(h)}` }, `head ${h + 1}`);
    button.addEventListener("click", () => { state.heads[h] = !state.heads[h]; render(); });
    button.addEventListener("dblclick", () => { state.heads = state.heads.map((_, k) => k === h); render(); });
    headField.append(button);
  });
}

// ---- the head view -------------------------------------------------------------

const svg = document.getElementById("view");
const tooltip = document.getElementById("tooltip");
const rowHeight = 28, headerHeight = 44, textWidth = 150, gap = 200, pad = 12;

function tokenGroup(side, index, x, y, anchor) {
  const selected = state.selection && state.selection.side === side && state.selection.index === index;
  const g = element("g", { class: "token" + (selected ? " selected" : ""), "data-side": side, "data-index": index });
  const left = anchor === "end" ? x - textWidth : x;
  g.append(element("rect", { x: left - 4, y: y - rowHeight / 2 + 2, width: textWidth + 8, height: rowHeight - 4 }),
           element("text", { x, y, "text-anchor": anchor }, label(tokens()[index])));
  // Hovering redraws only the lines, so the token under the pointer stays the same element.
  g.addEventListener("mouseenter", () => { state.hover = { side, index }; drawLines(); });
  g.addEventListener("mouseleave", () => { state.hover = null; drawLines(); });
  g.addEventListener("click", () => {
    state.selection = selected ? null : { side, index };
    if (state.selection && state.neuron) state.neuron[side] = index;  // the neuron view follows the selected token
    state.hover = null;
    render();
  });
  return g;
}

// Which (head, query, key) lines a selection shows: every line of a head shown whose weight shows as more than 0.
function visibleLines(selection) {
  const lines = [];
  state.heads.forEach((on, head) => {
    if (!on) return;
    weights(head).forEach((row, query) => row.forEach((w, key) => {
      if (!shownWeight(w)) return;
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
      "data-head": head, "data-from": query, "data-to": key, "data-weight": String(w),
    });
    const text = `head ${head + 1}: ${label(tokens()[query])} (${query}) → ${label(tokens()[key])} (${key}) = ${w.toFixed(decimals)}`;
    line.append(element("title", {}, text));
    line.addEventListener("mousemove", (event) => {
      tooltip.textContent = text;
      tooltip.style.left = `${event.clientX + 14}px`;
      tooltip.style.top = `${event.clientY + 14}px`;
      tooltip.hidden = false;
    });
    line.addEventListener("mouseleave", () => { tooltip.hidden = true; });
    line.addEventListener("click", () => { state.neuron = { head, query, key }; render(); });
    group.append(line);
  }
  drawDetail(selection);
}

// The selected token's weights as a table: one row per token on the other side, one column per head shown.
function drawDetail(selection) {
  const detail = document.getElementById("detail");
  if (!selection) {
    detail.replaceChildren(element("h2", {}, "Weights"),
                           element("p", {}, "Select a token to list its attention weights per head; click a line for its neuron view."));
    return;
  }
  const shown = shownHeads();
  const word = label(tokens()[selection.index]);
  const fromQuery = selection.side === "query";
  const heading = fromQuery ? `Query ${selection.index} “${word}” attends to` : `Key ${selection.index} “${word}” is attended to by`;
  const table = element("table");
  const header = element("tr");
  header.append(element("th", {}, fromQuery ? "key" : "query"));
  for (const h of shown) header.append(element("th", { style: `color: ${headColor(h)}` }, `head ${h + 1}`));
  table.append(header);
  tokens().forEach((other, k) => {
    const tr = element("tr");
    tr.append(element("td", {}, `${k} ${label(other)}`));
    const [query, key] = fromQuery ? [selection.index, k] : [k, selection.index];
    for (const h of shown) {
      const off = masked(query, key);  // the mask gave this pair exactly 0
      tr.append(element("td", off ? { class: "masked" } : {}, off ? "masked" : weights(h)[query][key].toFixed(decimals)));
    }
    table.append(tr);
  });
  detail.replaceChildren(element("h2", {}, heading), table);
}

// ---- the model view: every layer and head at once ---------------------------------

// grad: gradientsOf() in the dL/dA view (squares coloured by dL/dA on its diverging scale), else null.
function drawModelView(grad) {
  const grid = document.getElementById("model-view");
  if (grad && grad.problem) { grid.replaceChildren(); return; }
  const T = tokens().length, cell = Math.max(3, Math.min(12, Math.floor(132 / T))), size = cell * T;
  grid.style.setProperty("--columns", model().n_heads);
  const panels = [];
  analysis().layers.forEach((layer, l) => layer.weights.forEach((w, h) => {
    const current = l === state.layer && state.heads[h];
    const thumb = element("svg", { class: "thumb" + (current ? " current" : ""), width: size + 2, height: size + 2,
                                   role: "img", "data-layer": l, "data-head": h });
    thumb.append(element("title", {}, `layer ${l + 1}, head ${h + 1}${grad ? " (dL/dA)" : ""}: rows are queries, columns keys; click to study it`));
    thumb.append(element("rect", { x: 0.5, y: 0.5, width: size + 1, height: size + 1, class: "frame" }));
    w.forEach((row, i) => row.forEach((v, j) => {
      if (masked(i, j)) thumb.append(element("rect", { x: 1 + j * cell, y: 1 + i * cell, width: cell, height: cell, class: "masked" }));
      else if (grad) thumb.append(element("rect", { x: 1 + j * cell, y: 1 + i * cell, width: cell, height: cell,
                                                    fill: divergingColour(grad.layers[l][h][i][j], grad.biggest) }));
      else if (v > 0) thumb.append(element("rect", { x: 1 + j * cell, y: 1 + i * cell, width: cell, height: cell,
                                                     fill: headColor(h), "fill-opacity": v }));
    }));
    thumb.addEventListener("click", () => {
      state.layer = l;
      state.heads = state.heads.map((_, k) => k === h);
      if (state.neuron) state.neuron.head = h;
      render();
    });
    const figure = element("figure");
    figure.append(thumb, element("figcaption", {}, `L${l + 1} H${h + 1}`));
    panels.push(figure);
  }));
  grid.replaceChildren(...panels);
}

// ---- the neuron view: one query and key, element by element -------------------------

const signed = (v) => (v < 0 ? "−" : "") + Math.abs(v).toFixed(decimals - 1);
// A cell coloured by sign and size: orange positive, blue negative, as bertviz's neuron view.
function valueCell(v, biggest, attributes = {}) {
  const alpha = biggest > 0 ? Math.min(1, Math.abs(v) / biggest) : 0;
  const colour = v >= 0 ? `rgba(232, 89, 12, ${alpha.toFixed(3)})` : `rgba(28, 126, 214, ${alpha.toFixed(3)})`;
  return element("td", { ...attributes, style: `background: ${colour}`, title: String(v), "data-value": String(v) }, signed(v));
}

function drawNeuronView() {
  const box = document.getElementById("neuron");
  const result = analysis(), m = model();
  if (!result.logits) {
    box.replaceChildren(element("p", {}, "Recorded weights only: the neuron view needs the model's q and k."));
    return;
  }
  const T = tokens().length;
  if (!state.neuron) {  // the selected token if there is one, else the last query and the first key
    const sel = state.selection;
    state.neuron = { head: shownHeads()[0] ?? 0, query: sel && sel.side === "query" ? sel.index : T - 1,
                     key: sel && sel.side === "key" ? sel.index : 0 };
  }
  const { head, query, key } = state.neuron;
  const layer = result.layers[state.layer], q = layer.q[head][query], k = layer.k[head][key];
  const products = q.map((qe, e) => qe * k[e]);
  const score = layer.scores[head][query][key], scale = m.config.scale, weight = layer.weights[head][query][key];
  // sparsemax: weight = max(scaled − τ, 0), τ read off any key the row keeps (scaled − weight there).
  const sparsemaxStep = (weights) => {
    const kept = weights.findIndex((w) => w > 0);
    const tau = row[kept] * scale - weights[kept], support = weights.filter((w) => w > 0).length;
    return `sparsemax over query ${query}'s ${row.filter((s) => s !== null).length} visible keys keeps ${support}: ` +
           `weight = max(${(score * scale).toFixed(4)} − τ, 0), τ = ${tau.toFixed(4)}, = ${weight.toFixed(decimals)}` +
           (weight === 0 ? " (exactly 0: below the threshold)" : "");
  };
  const choose = (what, count, value, name) => {
    const select = element("select", { "aria-label": what, id: `neuron-${what}` });
    for (let i = 0; i < count; ++i) select.append(element("option", { value: i }, name(i)));
    select.value = String(value);
    select.addEventListener("change", () => { state.neuron[what] = Number(select.value); render(); });
    const wrap = element("label", {}, `${what} `);
    wrap.append(select);
    return wrap;
  };
  const pickers = element("p", { class: "pickers" });
  pickers.append(`layer ${state.layer + 1}, `, choose("head", m.n_heads, head, (h) => `${h + 1}`),
                 choose("query", T, query, (i) => `${i} ${label(tokens()[i])}`), choose("key", T, key, (j) => `${j} ${label(tokens()[j])}`));

  // q, k and q ⊙ k, one column per element of the head's d_k.
  const table = element("table", { class: "vectors" });
  const header = element("tr");
  header.append(element("th", {}, "element"));
  q.forEach((_, e) => header.append(element("th", {}, String(e))));
  table.append(header);
  const biggest = Math.max(...q.map(Math.abs), ...k.map(Math.abs));
  const biggestProduct = Math.max(...products.map(Math.abs));
  for (const [name, values, big] of [[`q (query ${query})`, q, biggest], [`k (key ${key})`, k, biggest], ["q × k", products, biggestProduct]]) {
    const tr = element("tr");
    tr.append(element("th", {}, name));
    values.forEach((v) => tr.append(valueCell(v, big)));
    table.append(tr);
  }

  // The arithmetic that turns the products into a weight.
  const steps = element("ol", { class: "steps" });
  const row = layer.scores[head][query];
  if (score === null) {
    steps.append(element("li", {}, `The mask blocks key ${key} for query ${query}: its score is −∞ and its weight exactly 0.`));
  } else {
    steps.append(element("li", {}, `score = Σ q × k = ${score.toFixed(4)}`),
                 element("li", {}, `scaled score = score × ${scale.toFixed(4)}` +
                                   `${Math.abs(scale * Math.sqrt(q.length) - 1) < 1e-9 ? ` (1/√d_k, d_k = ${q.length})` : " (the model's scale)"}` +
                                   ` = ${(score * scale).toFixed(4)}`),
                 element("li", {}, m.config.normalizer === "sparsemax" ? sparsemaxStep(layer.weights[head][query]) :
                                   `softmax over query ${query}'s ${row.filter((s) => s !== null).length} visible keys: ` +
                                   `weight = exp(${(score * scale).toFixed(4)}) / Σ exp(scaled scores) = ${weight.toFixed(decimals)}`));
  }
  // The query's whole row: every key's score, scaled score and weight.
  const rowTable = element("table", { class: "row" });
  const rowHeader = element("tr");
  for (const title of ["key", "score", "scaled", "weight"]) rowHeader.append(element("th", {}, title));
  rowTable.append(rowHeader);
  row.forEach((s, j) => {
    const tr = element("tr", j === key ? { class: "chosen" } : {});
    tr.append(element("td", {}, `${j} ${label(tokens()[j])}`));
    if (s === null) tr.append(element("td", { class: "masked", colspan: 3 }, "masked"));
    else tr.append(element("td", {}, s.toFixed(4)), element("td", {}, (s * scale).toFixed(4)),
                   element("td", {}, layer.weights[head][query][j].toFixed(decimals)));
    rowTable.append(tr);
  });
  box.replaceChildren(pickers, table, steps, rowTable);
  box.dataset.head = head, box.dataset.query = query, box.dataset.key = key;
  box.dataset.score = score === null ? "masked" : String(score);
  box.dataset.scaled = score === null ? "masked" : String(score * scale);
  box.dataset.weight = String(weight);
}

// ---- predictions and the numbers ------------------------------------------------------

function drawPredictions() {
  const box = document.getElementById("predictions");
  const result = analysis(), m = model();
  if (!result.logits) { box.replaceChildren(); return; }
  const table = element("table");
  const header = element("tr");
  for (const title of ["position", m.causal ? "reads" : "token", m.causal ? "next token, most likely first" : "the model's guess for this position"])
    header.append(element("th", {}, title));
  table.append(header);
  result.logits.forEach((logits, t) => {
    const top = Math.max(...logits), exp = logits.map((z) => Math.exp(z - top)), total = exp.reduce((a, b) => a + b, 0);
    const best = [...exp.keys()].sort((a, b) => exp[b] - exp[a]).slice(0, 3);
    const tr = element("tr");
    tr.append(element("td", {}, String(t)), element("td", {}, label(tokens()[t])),
              element("td", {}, best.map((id) => `${label(m.vocab[id])} ${(exp[id] / total).toFixed(2)}`).join(", ")));
    table.append(tr);
  });
  box.replaceChildren(table);
}

// Every number of every model the page runs, on the current text, as JSON: written only while
// "All numbers" is ticked (it is long). A model that cannot read the text gives its problem.
function drawNumbers() {
  const pre = document.getElementById("numbers-json");
  document.getElementById("numbers-toggle").checked = state.numbers;
  if (!state.numbers) { pre.textContent = ""; return; }
  const models = data.models.map((m, i) => {
    const r = analyse(i, state.text);
    if (!r.logits) return { model: m.key, problem: r.problem ?? "recorded weights only" };
    return { model: m.key, tokens: r.tokens, ids: r.ids,
             logits: r.logits.map((row) => [...row]),             // [T][V]
             attention: r.layers.map((l) => l.weights) };         // [layer][head][query][key]
  });
  pre.textContent = JSON.stringify({ text: state.text, models });
}

function render() {
  syncControls();
  const result = analysis(), unknown = document.getElementById("unknown");
  unknown.textContent = result.problem ?? "";
  const what = state.sentence >= 0 ? `sentence ${state.sentence + 1}` : `“${state.text}”`;
  const status = document.getElementById("status");
  const gradientNote = document.getElementById("gradient-note");
  gradientNote.textContent = "";
  if (result.problem) {
    for (const id of ["model-view", "neuron", "predictions", "detail", "gradient-view"]) document.getElementById(id).replaceChildren();
    svg.replaceChildren();
    svg.setAttribute("width", 0), svg.setAttribute("height", 0);  // no empty frame where the drawing was
    document.getElementById("numbers-json").textContent = "";
    status.textContent = `${model().name}, ${what}: nothing to show`;
  } else if (state.view === "gradients") {
    const grad = gradientsOf();
    svg.replaceChildren();
    svg.setAttribute("width", 0), svg.setAttribute("height", 0);
    document.getElementById("detail").replaceChildren();
    if (grad.problem) document.getElementById("gradient-view").replaceChildren();
    else drawGradientView(grad);
    gradientNote.textContent = grad.problem ?? "";
    drawModelView(grad);
    drawNeuronView();
    drawPredictions();
    drawNumbers();
    const shown = shownHeads().map((h) => h + 1);
    status.textContent =
      `${model().name} (${model().causal ? "causal" : "bidirectional"}), ${what}, layer ${state.layer + 1}, ` +
      `${shown.length ? "head " + shown.join(", ") : "no head"}: dL/dA ` +
      (grad.problem ? "not available" : `of the next-token loss ${grad.loss.toFixed(4)}, ` +
                                        `${document.querySelectorAll("#gradient-view td[data-grad]").length} cells`);
  } else {
    document.getElementById("gradient-view").replaceChildren();
    drawTokens();
    drawLines();
    drawModelView(null);
    drawNeuronView();
    drawPredictions();
    drawNumbers();
    const lineCount = svg.querySelectorAll("line.attn").length;
    const shown = shownHeads().map((h) => h + 1);
    const sel = state.selection;
    status.textContent =
      `${model().name} (${model().causal ? "causal" : "bidirectional"}), ${what}, layer ${state.layer + 1}, ` +
      `${shown.length ? "head " + shown.join(", ") : "no head"}${sel ? `, ${sel.side} ${sel.index} “${label(tokens()[sel.index])}”` : ""}: ` +
      `${lineCount} lines`;
  }
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
