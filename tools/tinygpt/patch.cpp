// patch.cpp — tinygpt patch: activation patching on two texts of the learner's choosing
// (analyses/patching.hpp), on any causal checkpoint: of the toy grammar or of a corpus.
#include "tools/tinygpt/common.hpp"

#include <algorithm>
#include <filesystem>

#include "analyses/patching.hpp"
#include "analyses/patching_figures.hpp"
#include "data/vocab.hpp"
#include "io/json.hpp"
#include "plots/save.hpp"
#include "tensor/ops.hpp"

namespace attnlab::tinygpt {

void declare_patch(lab::Options& o) {
    o.add("checkpoint", "PATH", "", "the causal model to patch (any tinygpt checkpoint trained on next tokens)");
    o.add("clean", "TEXT", "", "the text whose next token the model gets right (\"the cat near the dogs\")");
    o.add("corrupted", "TEXT", "", "the same number of tokens with one fact changed (\"the cats near the dogs\")");
    o.add("answer", "TOKEN", "", "the next token the clean text calls for (\"sleeps\"): one token of the model");
    o.add("wrong", "TOKEN", "", "its rival, the token the corrupted text calls for (\"sleep\")");
    o.add("out", "DIR", "", "where the figures go: patch_residual and patch_heads (.svg and .png each), and patch.json");
}

namespace {

// --answer / --wrong as one token of the checkpoint.
std::int64_t one_token(const nn::LoadedCheckpoint& ck, const lab::Options& o, const std::string& flag) {
    std::vector<std::int64_t> ids = encode_prompt(ck, required(o, flag), "--" + flag);
    if (ids.size() > 1 && ids.front() == data::Vocab::kBos && !is_chars(ck)) ids.erase(ids.begin());
    if (ids.size() != 1)
        throw UsageError("--" + flag + " '" + o.text(flag) + "' is " + std::to_string(ids.size()) +
                         " tokens of this model; give one (the next token whose logit is compared)");
    return ids.front();
}

Json to_rows(const Tensor& t) {  // [R, C] -> [[...], ...]
    Json rows = Json::array();
    for (std::int64_t r = 0; r < t.size(0); ++r) {
        Json row = Json::array();
        for (std::int64_t c = 0; c < t.size(1); ++c) row.push_back(t.at({r, c}));
        rows.push_back(row);
    }
    return rows;
}

}  // namespace

int cmd_patch(const lab::Options& o) {
    const std::string dir = out_dir(o, "out");
    for (const char* flag : {"clean", "corrupted", "answer", "wrong"}) required(o, flag);
    nn::LoadedCheckpoint ck = load(o);
    if (!ck.model->config().causal)
        throw UsageError("--checkpoint '" + o.text("checkpoint") + "' is a bidirectional model; patching compares the "
                         "next-token logits, which only a causal model is trained on");
    lab::PatchPair pair{encode_prompt(ck, o.text("clean"), "--clean"), encode_prompt(ck, o.text("corrupted"), "--corrupted"),
                        one_token(ck, o, "answer"), one_token(ck, o, "wrong")};
    if (pair.clean.size() != pair.corrupted.size())
        throw UsageError("--clean '" + o.text("clean") + "' is " + std::to_string(pair.clean.size()) + " tokens and --corrupted '" +
                         o.text("corrupted") + "' " + std::to_string(pair.corrupted.size()) +
                         ": patching copies activations position by position, so both need the same number of tokens");
    if (pair.answer == pair.wrong) throw UsageError("--answer and --wrong are the same token '" + o.text("answer") + "'");
    const auto T = static_cast<std::int64_t>(pair.clean.size());
    if (T > ck.model->config().context)
        throw ValueError("--clean is " + std::to_string(T) + " tokens; the model reads at most " +
                         std::to_string(ck.model->config().context));
    const lab::PatchingResult r = lab::activation_patching(*ck.model, {pair});
    std::printf("logit difference '%s' - '%s' at the last position: clean %.3f, corrupted %.3f\n", o.text("answer").c_str(),
                o.text("wrong").c_str(), r.clean_mean, r.corrupted_mean);
    std::vector<std::string> labels;
    for (std::int64_t id : pair.clean) labels.push_back(label(ck, id));
    std::printf("fraction restored by patching the residual stream after each layer at each position (of --clean):\n");
    lab::patching_residual_table(r.residual, labels);
    std::printf("fraction restored by patching each head's output at the last position:\n");
    for (std::int64_t l = 0; l < r.heads.size(0); ++l) {
        std::printf("  L%lld", (long long)l + 1);
        for (std::int64_t h = 0; h < r.heads.size(1); ++h) std::printf("  H%lld %6.2f", (long long)h + 1, r.heads.at({l, h}));
        std::printf("\n");
    }
    const std::vector<double> heads = r.heads.to_vector<double>();
    const std::int64_t best = std::max_element(heads.begin(), heads.end()) - heads.begin();
    std::printf("the head that restores the most: L%lld H%lld (%.0f %%)\n", (long long)(best / r.heads.size(1)) + 1,
                (long long)(best % r.heads.size(1)) + 1, 100 * heads[static_cast<std::size_t>(best)]);

    std::filesystem::create_directories(dir);
    const std::string title = "Residual stream after each layer, patched";
    plots::save(lab::patching_residual_heatmap(r.residual, labels, title, lab::patching_range({r.residual})), dir + "/patch_residual");
    plots::save(lab::patching_heads_heatmap({r.heads}, {"'" + o.text("answer") + "' - '" + o.text("wrong") + "'"},
                                            "Each head's output at the last position, patched"),
                dir + "/patch_heads");
    report({dir + "/patch_residual", dir + "/patch_heads"});
    const Json result = Json::Object{{"checkpoint", o.text("checkpoint")},
                                     {"clean", o.text("clean")},
                                     {"corrupted", o.text("corrupted")},
                                     {"answer", o.text("answer")},
                                     {"wrong", o.text("wrong")},
                                     {"clean_logit_difference", r.clean_mean},
                                     {"corrupted_logit_difference", r.corrupted_mean},
                                     {"residual", to_rows(r.residual)},
                                     {"heads", to_rows(r.heads)}};
    save_json(dir + "/patch.json", result);
    std::printf("wrote %s/patch.json\n", dir.c_str());
    return 0;
}

}  // namespace attnlab::tinygpt
