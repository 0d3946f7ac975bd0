// show.hpp — drawing what a model attends to, for any model and any text: the figures
// `tinygpt show` and `tinygpt generate --show` write.
//
//   attention_heads      every layer × every head, one heatmap each (rows: layers)
//   attention_flow       every layer × head as query -> key lines, width = weight
//   attention_rollout    the last layer (heads averaged) beside the rollout through all layers
//   entropy_over_training  each head's entropy at every evaluation of the run (a training checkpoint)
//   attention_entropy    mean entropy of each head's rows (0 = one key), against attending
//                        uniformly to the keys each query may see (ln T without a mask)
// Grids of heads hold at most kMaxGridColumns a row (and the flow's at most kMaxGridWidth
// pixels); more heads wrap onto the next row.
// Each as .svg and .png in the output folder, from one sequence's weights.
//
// The explorer page (explorer/) for phase 3 and `tinygpt show`: explorer_model puts a
// checkpoint into it (weights, vocabulary, config: the page runs the model on any text),
// write_explorer_page writes the page and its data. write_explorer with a checkpoint is
// `tinygpt show --checkpoint`'s live page; without one, recorded weights only (--from-npy).
#pragma once
#include <string>
#include <vector>

#include "nn/checkpoint.hpp"
#include "plots/chart_input.hpp"
#include "plots/scene.hpp"
#include "io/json.hpp"
#include "tensor/tensor.hpp"

namespace attnlab::lab {

struct AttentionOf {
    std::string title;                // "causal_model on \"the cat sat\""
    std::string text;                 // the text itself, as the explorer lists it
    std::vector<std::string> tokens;  // one per position
    std::vector<Tensor> layers;       // layers[l]: [H, T, T], rows sum to 1 (0 where fully masked)
    std::vector<std::int64_t> ids;    // the model's token ids, when a model made it (empty from an .npy):
                                      // `tokens` are labels (a space drawn as "_"), the explorer needs the ids
};

// A token as a label: whitespace made visible (" " -> "_", "\n" -> "\\n", "\t" -> "\\t"), so a
// character model's tokens can label axes and files that split on spaces.
std::string token_label(const std::string& token);

// The most `show` draws, checked from the shape alone before anything is allocated. The
// work is in the heatmap cells: every head's T x T, and the last layer's and the rollout's,
// (L·H + 2)·T² in all. A cell is at least 26 pixels wide, so 2^14 cells are about 11 million
// pixels to rasterize and compress, a few seconds; a --sentences file shares 2^15 among
// its texts. Every figure also checks its pixel size (plots/layout.hpp: too many heads side
// by side).
inline constexpr std::int64_t kMaxGridColumns = 4;           // heads a row in attention_heads and attention_flow
inline constexpr double kMaxGridWidth = 2000;                 // pixels: attention_flow's wide panels wrap sooner
inline constexpr std::int64_t kMaxShowTokens = 64;            // T
inline constexpr std::int64_t kMaxShowPanels = 64;            // layers x heads
inline constexpr std::int64_t kMaxShowCells = 1 << 14;        // (L·H + 2)·T², one text
inline constexpr std::int64_t kMaxShowTotalCells = 1 << 15;   // the same, every text of one show

// The heatmap cells of one text: (L·H + 2)·T² (sizes already within the limits above).
std::int64_t show_cells(std::int64_t L, std::int64_t H, std::int64_t T);

// ValueError naming `who` and the shape unless L, H and T are >= 1 and within the limits above.
void check_drawable(std::int64_t L, std::int64_t H, std::int64_t T, const std::string& who);

// Checks the size (check_drawable), the shapes (ShapeError naming the layer) and the values
// (ValueError: outside [0, 1]).
void check(const AttentionOf& a);

// Writes the four figures into dir (created); returns their stems ("dir/attention_heads", ...).
std::vector<std::string> draw_attention(const AttentionOf& a, const std::string& dir);

// One figure per layer, the heads' average and then each head: the rows of the generated
// positions (from `first_generated` on) against every position before them: what each new
// token read.
std::vector<std::string> draw_generation(const AttentionOf& a, std::size_t first_generated, const std::string& dir);

// The training checkpoint's entropy_curve (each head's mean attention entropy on a fixed
// validation batch at every evaluation, recorded by lab::train) as entropy_over_training:
// one line per head, or per layer past kMaxEntropyLines heads. Returns its stem, or "" if
// the checkpoint records none (saved without training, or before the curve was recorded).
inline constexpr std::int64_t kMaxEntropyLines = 12;
std::string draw_entropy_over_training(const nn::LoadedCheckpoint& ck, const std::string& title, const std::string& dir);

// How the page turns a text into one model's tokens: whitespace-separated words or
// characters, between fixed tokens (phase 3's <bos> words <eos>, as the toy rows were packed).
struct Framing {
    bool chars = false;
    std::vector<std::string> prefix, suffix;
};

// How `tinygpt eval`/`show` read a prompt: characters for a char model; words after <bos>
// for the toy grammar (its rows open with it), words alone for a word corpus (one stream).
Framing prompt_framing(const nn::LoadedCheckpoint& ck);

// A model the page runs itself (the format is in explorer/explorer.hpp). `source`
// names the checkpoint it came from; tools/browser_test.cpp loads it to check the page.
struct ExplorerModel {
    std::string key, name, description, source;
    Framing framing;
};
Json explorer_model(const nn::LoadedCheckpoint& ck, const ExplorerModel& m);

// The page's "gradients" for a causal checkpoint: per sequence (tokens as the page frames them,
// each in ck's vocabulary) {"loss", "dA": [layer][head][query][key]} from lab::attention_gradients,
// rounded (explorer::gradients_json); null for a sequence of one token (no next token to predict).
// ValueError for a bidirectional model (it is not trained on the next-token loss) or a token
// outside the vocabulary.
Json explorer_gradients(const nn::LoadedCheckpoint& ck, const std::vector<std::vector<std::string>>& sequences);

// The page's data: the listed sentences (text, tokens) and the models (explorer_model's, or recorded).
Json explorer_data(const std::vector<std::pair<std::string, std::vector<std::string>>>& sentences, Json models);

// dir/explorer.html (self-contained) and dir/explorer_data.json from `data`; returns the page's path.
std::string write_explorer_page(const Json& data, const std::string& dir);

// Recorded weights only: one model (`name`; `causal` greys the blocked pairs) on every sequence
// of `sequences` (same layer and head counts); the page shows those and cannot run others.
std::string write_explorer(const std::string& name, bool causal, const std::vector<AttentionOf>& sequences, const std::string& dir);

// The live page for checkpoint `ck` (called `name`), listing the sequences' texts first; a causal
// model's page carries their dL/dA (explorer_gradients) for the page's gradient toggle.
std::string write_explorer(const nn::LoadedCheckpoint& ck, const std::string& name, const std::vector<AttentionOf>& sequences,
                           const std::string& dir);

// Several live models of one vocabulary in one page (`tinygpt compare`): each under its key
// ("A-causal"), described by its real kind, causal or bidirectional.
struct ExplorerCheckpoint {
    const nn::LoadedCheckpoint* ck;
    std::string key, name;
};
std::string write_explorer(const std::vector<ExplorerCheckpoint>& models, const std::vector<AttentionOf>& sequences,
                           const std::string& dir);

// A 2-D tensor as a plots::Matrix (rows of doubles).
plots::Matrix to_matrix(const Tensor& t);

}  // namespace attnlab::lab
