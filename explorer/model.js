// model.js — the toy transformer's forward pass in plain JavaScript (inlined into
// explorer.html before explorer.js). It is nn::Transformer's, step for step:
//
//   x = tok_emb[ids] + positions[0..T−1]
//   for each block:  x = x + W_O·concat_h(normalize(q_h k_hᵀ · scale + mask) v_h);   q, k, v from ln1(x)
//                    x = x + fc2(gelu(fc1(ln2(x))))
//   logits = head(ln_f(x))
//
// positions: config.positions, the rows of pos_emb ("learned"), the sinusoidal encoding of
// nn/positional.cpp rounded to float32 as attnlab stores it ("sinusoidal"), or nothing ("none");
// normalize: config.normalizer, softmax or sparsemax (nn/sparse_attention.cpp, exact zeros).
// with LayerNorm's biased variance and eps 1e-5 (nn/layer_norm.cpp), the exact GELU
// x·Φ(x) (tensor/unary.cpp), the mask of Transformer::attention_mask (causal, ±window,
// every stride-th key) and softmax's rule that a fully masked row is all zeros. The
// weights are the checkpoint's float32 values; the arithmetic here is float64, so the
// page agrees with attnlab's float32 forward to its rounding (browser_test: within 1e-4).
// Matrices are arrays of rows (Float64Array), as [T][d]; a Linear weight is [out][in].
"use strict";

// base64 -> Float32 values, read little-endian as lab::explorer_model wrote them.
function decodeWeights(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  const out = new Float64Array(bytes.length / 4);
  for (let i = 0; i < out.length; ++i) out[i] = view.getFloat32(4 * i, true);
  return out;
}

// The model's tensors by name: {shape, values} (values a view into one decoded array).
function loadTensors(model) {
  const all = decodeWeights(model.weights);
  const tensors = {};
  let offset = 0;
  for (const { name, shape } of model.tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    tensors[name] = { shape, values: all.subarray(offset, offset + n) };
    offset += n;
  }
  if (offset !== all.length) throw new Error(`${model.name}: the weights hold ${all.length} values, the tensors ${offset}`);
  return tensors;
}

// y = x Wᵀ + b: x [T][in], W [out][in] -> [T][out]
function linear(x, weight, bias) {
  const [outF, inF] = weight.shape, W = weight.values;
  return x.map((row) => {
    const y = new Float64Array(outF);
    for (let o = 0; o < outF; ++o) {
      let s = bias ? bias.values[o] : 0;
      for (let i = 0; i < inF; ++i) s += row[i] * W[o * inF + i];
      y[o] = s;
    }
    return y;
  });
}

function layerNorm(x, weight, bias, eps = 1e-5) {
  return x.map((row) => {
    const d = row.length;
    const mean = row.reduce((a, b) => a + b, 0) / d;
    const variance = row.reduce((a, b) => a + (b - mean) * (b - mean), 0) / d;  // biased, as PyTorch's
    const r = 1 / Math.sqrt(variance + eps);
    return row.map((v, j) => (v - mean) * r * weight.values[j] + bias.values[j]);
  });
}

// erf to double precision: its Taylor series near 0, the continued fraction of erfc beyond.
function erf(z) {
  const a = Math.abs(z);
  if (a < 2.5) {
    let term = a, sum = a;
    for (let n = 1; n < 60; ++n) {
      term *= (-a * a) / n;
      sum += term / (2 * n + 1);
    }
    return Math.sign(z) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = a;  // erfc(a) = exp(−a²)/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + ...)))), evaluated from the tail up
  for (let n = 60; n >= 1; --n) f = a + n / 2 / f;
  return Math.sign(z) * (1 - Math.exp(-a * a) / Math.sqrt(Math.PI) / f);
}
const gelu = (v) => 0.5 * v * (1 + erf(v / Math.SQRT2));  // x·Φ(x), PyTorch's approximate='none'

// May query i see key j? Transformer::attention_mask: causal, then ±window, then every stride-th key.
function allowed(model, i, j) {
  const { window, stride } = model.config;
  if (model.causal && j > i) return false;
  if (window > 0 && Math.abs(i - j) > window) return false;
  if (stride > 0 && (((i - j) % stride) + stride) % stride !== 0) return false;
  return true;
}

// The position vector added at position t: [d] (nn::Transformer::position_vectors).
function positionVector(model, tensors, t, d) {
  const scheme = model.config.positions;
  if (scheme === "learned") return tensors["pos_emb.weight"].values.subarray(t * d, (t + 1) * d);
  if (scheme === "none") return new Float64Array(d);
  if (scheme !== "sinusoidal") throw new Error(`${model.name}: unknown position scheme '${scheme}'`);
  const pe = new Float64Array(d);
  for (let i = 0; 2 * i < d; ++i) {  // pair i: sin and cos of pos / 10000^(2i / d_model)
    const angle = t / Math.pow(10000, (2 * i) / d);
    pe[2 * i] = Math.fround(Math.sin(angle)), pe[2 * i + 1] = Math.fround(Math.cos(angle));
  }
  return pe;
}

// softmax of one row of scaled scores (−∞: masked); a fully masked row is all zeros.
function softmaxRow(scaled) {
  const m = Math.max(...scaled);
  const e = scaled.map((z) => (z === -Infinity ? 0 : Math.exp(z - m)));
  const total = e.reduce((a, c) => a + c, 0);
  return e.map((c) => (total > 0 ? c / total : 0));
}

// sparsemax of one row: max(z − τ, 0), τ such that the weights sum to 1. Sorted descending, the
// support is the largest k with 1 + k·z_(k) > Σ_{j≤k} z_(j), and τ = (Σ_{j≤k} z_(j) − 1) / k.
function sparsemaxRow(scaled) {
  const sorted = scaled.filter((z) => z !== -Infinity).sort((a, b) => b - a);
  if (sorted.length === 0) return scaled.map(() => 0);  // fully masked
  let cumulative = 0, supportSum = 0, k = 0;
  sorted.forEach((z, j) => {
    cumulative += z;
    if (1 + (j + 1) * z > cumulative) k = j + 1, supportSum = cumulative;
  });
  const tau = (supportSum - 1) / k;
  return scaled.map((z) => Math.max(z - tau, 0));
}

function normalizeRow(model, scaled) {
  const normalizer = model.config.normalizer;
  if (normalizer === "softmax") return softmaxRow(scaled);
  if (normalizer === "sparsemax") return sparsemaxRow(scaled);
  throw new Error(`${model.name}: unknown attention normalizer '${normalizer}'`);
}

// One forward pass on token ids. Returns {logits [T][V], layers: [l] {q, k: [h][T][d_k],
// scores: [h][T][T] (q·k, unscaled), weights: [h][T][T]}}; masked scores are null.
function forward(model, tensors, ids) {
  const T = ids.length, d = model.config.d_model, H = model.n_heads, dk = d / H;
  const p = (name) => tensors[name];
  const tok = p("tok_emb.weight").values;
  let x = ids.map((id, t) => {
    const pos = positionVector(model, tensors, t, d);
    return Float64Array.from({ length: d }, (_, j) => tok[id * d + j] + pos[j]);
  });
  const layers = [];
  for (let l = 0; l < model.n_layers; ++l) {
    const b = `blocks.${l}.`;
    // 1. q, k, v from ln1(x), split into H heads of d_k: [T][d] -> [h][T][d_k]
    const h1 = layerNorm(x, p(b + "ln1.weight"), p(b + "ln1.bias"));
    const split = (m) => Array.from({ length: H }, (_, h) => m.map((row) => row.subarray(h * dk, (h + 1) * dk)));
    const [q, k, v] = ["w_q", "w_k", "w_v"].map((w) => split(linear(h1, p(`${b}attn.${w}.weight`), p(`${b}attn.${w}.bias`))));
    // 2. per head: scores, masked softmax (or sparsemax), weighted sum of values
    const scores = [], weights = [];
    const concat = Array.from({ length: T }, () => new Float64Array(d));
    for (let h = 0; h < H; ++h) {
      const s = [], w = [];
      for (let i = 0; i < T; ++i) {
        const row = Array.from({ length: T }, (_, j) => (allowed(model, i, j) ? q[h][i].reduce((a, qe, e) => a + qe * k[h][j][e], 0) : null));
        const scaled = row.map((sc) => (sc === null ? -Infinity : sc * model.config.scale));
        const wr = normalizeRow(model, scaled);  // a fully masked row: all zeros
        for (let j = 0; j < T; ++j) for (let e2 = 0; e2 < dk; ++e2) concat[i][h * dk + e2] += wr[j] * v[h][j][e2];
        s.push(row), w.push(wr);
      }
      scores.push(s), weights.push(w);
    }
    // 3. W_O (absent in a qkv-only model), then the residual; 4. the MLP and its residual
    const attended = model.config.qkv_only ? concat : linear(concat, p(b + "attn.w_o.weight"), p(b + "attn.w_o.bias"));
    x = x.map((row, t) => row.map((val, j) => val + attended[t][j]));
    const hidden = linear(layerNorm(x, p(b + "ln2.weight"), p(b + "ln2.bias")), p(b + "mlp.fc1.weight"), p(b + "mlp.fc1.bias"));
    const mlp = linear(hidden.map((row) => row.map(gelu)), p(b + "mlp.fc2.weight"), p(b + "mlp.fc2.bias"));
    x = x.map((row, t) => row.map((val, j) => val + mlp[t][j]));
    layers.push({ q, k, scores, weights });
  }
  const logits = linear(layerNorm(x, p("ln_f.weight"), p("ln_f.bias")), p("head.weight"), null);
  return { logits, layers };
}

// Levenshtein distance with adjacent swaps counted as one edit, as data::nearest_words.
function editDistance(a, b) {
  a = [...a], b = [...b];
  let before = new Array(b.length + 1).fill(0), prev = Array.from({ length: b.length + 1 }, (_, j) => j), cur = new Array(b.length + 1);
  for (let i = 1; i <= a.length; ++i) {
    cur[0] = i;
    for (let j = 1; j <= b.length; ++j) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], before[j - 2] + 1);
    }
    [before, prev, cur] = [prev, cur, before];
  }
  return prev[b.length];
}

// The n known words nearest to `word`, closest first, ties in vocabulary order (a stable sort).
function nearestWords(word, known, n) {
  return known.map((w, i) => ({ w, i, d: editDistance(word, w) }))
    .sort((x, y) => x.d - y.d || x.i - y.i).slice(0, n).map((e) => e.w);
}

// The words of `text` under a word model's rules, as data::split_words (data/tokenizer.hpp) splits
// them: ASCII whitespace separates words; "lowercase" turns A-Z into a-z; "split_punctuation" makes
// each ASCII punctuation mark a word of its own, except an apostrophe or hyphen between two
// characters that are neither space nor punctuation ("don't", "well-known").
function splitWords(text, rules) {
  const chars = [...text], words = [];
  const space = (c) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\v" || c === "\f";
  const punctuation = (c) => c > " " && c < "\x7f" && !/[A-Za-z0-9]/.test(c);
  const wordlike = (c) => c !== undefined && !space(c) && !punctuation(c);
  let word = "";
  const endWord = () => { if (word !== "") words.push(word); word = ""; };
  for (let i = 0; i < chars.length; ++i) {
    let c = chars[i];
    if (space(c)) { endWord(); continue; }
    if (rules.lowercase && c >= "A" && c <= "Z") c = c.toLowerCase();
    const inside = (c === "'" || c === "-") && wordlike(word.slice(-1) || undefined) && wordlike(chars[i + 1]);
    if (rules.split_punctuation && punctuation(c) && !inside) { endWord(); words.push(c); continue; }
    word += c;
  }
  endWord();
  return words;
}

// Text -> {ids, tokens} for one model, or {unknown: [...]} (each unknown word or character once).
function tokenize(model, text) {
  const vocab = model.vocab, index = new Map(vocab.map((t, i) => [t, i]));
  const units = model.tokenizer.unit === "char" ? [...text] : splitWords(text, model.tokenizer);
  const unknown = [...new Set(units.filter((u) => !index.has(u) || u === "<pad>"))];
  if (unknown.length) return { unknown };
  const tokens = [...model.tokenizer.prefix, ...units, ...model.tokenizer.suffix];
  return { tokens, ids: tokens.map((t) => index.get(t)) };
}
