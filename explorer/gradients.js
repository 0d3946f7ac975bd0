// gradients.js — the explorer's dL/dA view (inlined between model.js and explorer.js; it
// uses explorer.js's state, model(), tokens(), masked(), shownHeads() and element() only
// when called, after the whole script has run).
//
// The "weights | dL/dA" toggle swaps the head view for this one: for the chosen layer, one
// heatmap per head shown; cell (query i, key j) is dL/dA[i][j], the gradient of the
// sentence's mean next-token cross-entropy with respect to that attention weight, as
// attnlab's autograd computed it when the page was written (lab::explorer_gradients: the
// page runs the forward pass but cannot differentiate). Colours diverge around 0: red where
// more weight would raise the loss, blue where it would lower it, white at 0, full colour at
// ±max |dL/dA| over every layer and head of the sentence (the legend gives that number), so
// the heatmaps and the model view's squares share one scale. Masked pairs are grey.
// Each cell carries data-head, data-query, data-key (indices from 0) and data-grad (the
// embedded value, as the data holds it) and a title; tools/browser_test.cpp reads them back.
// Only a causal model's listed sentences have gradients: for anything else #gradient-note
// says why, and nothing is drawn.
"use strict";

// {layers: [layer][head][query][key], loss, biggest} for the current model and text, or {problem}.
function gradientsOf() {
  const m = model();
  if (!m.gradients)
    return { problem: m.causal ? `${m.name}: this page holds no dL/dA for it (recorded weights only)`
                               : `${m.name} has no dL/dA: it is the gradient of the next-token loss, which only a causal model ` +
                                 "is trained on (a bidirectional one sees the next token). Switch to the causal model." };
  if (state.sentence < 0)
    return { problem: "dL/dA exists for the listed sentences only: attnlab's autograd computed it when this page was written, " +
                      "and the page cannot differentiate. Pick a listed sentence (or type one exactly) to see it." };
  const g = m.gradients[state.sentence];
  if (!g) return { problem: `sentence ${state.sentence + 1} has a single token: no next token to predict, no loss to differentiate` };
  return { layers: g.dA, loss: g.loss, biggest: Math.max(0, ...g.dA.flat(3).map(Math.abs)) };
}

// v on the diverging scale: white at 0, red (#b2182b) at +biggest, blue (#2166ac) at -biggest.
function divergingColour(v, biggest) {
  const t = biggest > 0 ? Math.min(1, Math.abs(v) / biggest) : 0;
  const mix = (c) => Math.round(255 + (c - 255) * t);
  const [r, g, b] = v >= 0 ? [178, 24, 43] : [33, 102, 172];
  return `rgb(${mix(r)}, ${mix(g)}, ${mix(b)})`;
}

const gradientText = (v) => (v === 0 ? "0" : v.toPrecision(4));  // the data's 4 significant digits

// The legend: the colour bar, its ends in numbers, and what the colours mean.
function gradientLegend(grad) {
  const legend = element("div", { id: "gradient-legend", "data-max": String(grad.biggest) });
  legend.append(element("span", {}, `−${gradientText(grad.biggest)}`), element("span", { class: "bar" }),
                element("span", {}, `+${gradientText(grad.biggest)}`),
                element("p", {}, `dL/dA of the next-token loss on this sentence (mean cross-entropy ${grad.loss.toFixed(4)}). ` +
                                 "Red: more weight on that key would raise the loss; blue: lower it; white: 0; grey: masked. " +
                                 "Colours are scaled to ±max |dL/dA| over every layer and head of the sentence " +
                                 `(${gradientText(grad.biggest)}).`));
  return legend;
}

// One heatmap per head shown of the chosen layer, as tables whose cells carry the values.
function drawGradientView(grad) {
  const box = document.getElementById("gradient-view");
  const names = tokens().map(label);
  const maps = shownHeads().map((h) => {
    const table = element("table", { class: "grad", "data-head": h });
    const header = element("tr");
    header.append(element("th", {}, ""));
    names.forEach((t, j) => header.append(element("th", { class: "key", title: `key ${j}` }, t)));
    table.append(header);
    grad.layers[state.layer][h].forEach((row, i) => {
      const tr = element("tr");
      tr.append(element("th", { title: `query ${i}` }, `${i} ${names[i]}`));
      row.forEach((v, j) => {
        if (masked(i, j)) { tr.append(element("td", { class: "masked", title: "masked" })); return; }
        tr.append(element("td", { style: `background: ${divergingColour(v, grad.biggest)}`, "data-head": h, "data-query": i,
                                  "data-key": j, "data-grad": String(v),
                                  title: `head ${h + 1}: ${names[i]} (${i}) → ${names[j]} (${j}): dL/dA = ${gradientText(v)}` }));
      });
      table.append(tr);
    });
    const figure = element("figure");
    figure.append(element("figcaption", { style: `color: ${headColor(h)}` }, `layer ${state.layer + 1}, head ${h + 1}`), table);
    return figure;
  });
  box.replaceChildren(gradientLegend(grad), ...maps);
}
