// held_out.cpp — see held_out.hpp.
#include "training/held_out.hpp"

#include <cmath>
#include <filesystem>

#include "autograd/node.hpp"
#include "data/corpus.hpp"
#include "data/lm_batches.hpp"
#include "data/mlm_batches.hpp"
#include "data/tokenizer.hpp"
#include "data/utf8.hpp"
#include "io/fileio.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"

namespace attnlab::lab {

namespace {

Batch from_lm(const data::LMBatch& b) { return {b.ids, b.targets, nn::Mask(), {}}; }
Batch from_mlm(const data::MLMBatch& b) {
    std::vector<std::int64_t> lengths = b.lengths.to_vector<std::int64_t>();
    return {b.ids, b.targets, nn::Mask::padding(lengths, b.ids.size(1)), std::move(lengths)};
}

std::string utf8(char32_t cp) {
    std::string s;
    data::append_utf8(s, cp);
    return s;
}

}  // namespace

BatchSource::BatchSource(const TrainConfig& c) : config_(c) {
    if (c.corpus.empty()) {
        vocab_ = grammar_vocab();
        return;
    }
    const std::string text = read_file(c.corpus);
    identity_ = identify_corpus(c.corpus, text);
    const std::string source = "corpus '" + c.corpus + "'";
    std::vector<std::int64_t> all;
    if (c.word_tokens) {
        data::WordCorpus words = data::read_word_corpus(text, source, word_rules(c));
        all = std::move(words.ids);
        for (std::int64_t i = 0; i < words.vocab.size(); ++i) vocab_.push_back(words.vocab.word(i));
    } else {
        const data::CharTokenizer tok = data::read_char_corpus(text, source);
        all = tok.encode(text);
        vocab_.push_back("<pad>");
        for (char32_t cp : tok.code_points()) vocab_.push_back(utf8(cp));  // id i + 1 is code point i
    }
    counts_.assign(vocab_.size(), 0);
    for (std::int64_t id : all) ++counts_[static_cast<std::size_t>(id)];
    const std::size_t split = all.size() * 9 / 10;  // the last tenth is held out
    if (split < static_cast<std::size_t>(c.context + 2) || all.size() - split < static_cast<std::size_t>(c.context + 2))
        throw ValueError("train: " + source + " has " + std::to_string(all.size()) + (c.word_tokens ? " words" : " characters") +
                         ", too few for context " + std::to_string(c.context) + " (a tenth is held out for validation)");
    train_tokens_.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(split));
    val_tokens_.assign(all.begin() + static_cast<std::ptrdiff_t>(split), all.end());
}

Batch BatchSource::next(Generator& gen) const {
    if (!config_.corpus.empty()) return from_stream(train_tokens_, gen);
    const auto& g = data::toy_grammar();
    switch (config_.task) {
        case Task::causal: return from_lm(data::make_lm_batch(g, gen, config_.batch, config_.context));
        case Task::chars:  // validate() allows it with a corpus only
        case Task::single_head:
        case Task::multi_head:
        case Task::qkv_head: break;
    }
    return from_mlm(data::make_mlm_batch(g, gen, config_.batch, config_.context, config_.mask_prob));
}

std::vector<Batch> BatchSource::validation(double* floor) const {
    const auto& g = data::toy_grammar();
    std::vector<Batch> out;
    if (!config_.corpus.empty()) {
        Generator gen(data::kValidationSeed);
        for (std::int64_t i = 0; i < config_.val_batches; ++i) out.push_back(from_stream(val_tokens_, gen));
        *floor = NAN;
    } else if (config_.task == Task::causal) {
        auto v = data::make_lm_validation(g, config_.val_batches, config_.batch, config_.context);
        for (auto& b : v) out.push_back(from_lm(b));
        *floor = data::bayes_floor(g, v);
    } else {
        auto v = data::make_mlm_validation(g, config_.val_batches, config_.batch, config_.context, config_.mask_prob);
        for (auto& b : v) out.push_back(from_mlm(b));
        *floor = data::bayes_floor_mlm(g, v);
    }
    return out;
}

// A corpus row: the next token of each, or hidden tokens for a masked-token task.
Batch BatchSource::from_stream(const std::vector<std::int64_t>& tokens, Generator& gen) const {
    if (info(config_.task).next_token) return from_lm(data::make_char_lm_batch(tokens, gen, config_.batch, config_.context));
    return from_mlm(data::make_stream_mlm_batch(tokens, gen, config_.batch, config_.context, config_.mask_prob));
}

Evaluation evaluate_batches(nn::Transformer& model, const std::vector<Batch>& batches, const nn::Mask& extra) {
    NoGradGuard no_grad;
    const bool was_training = model.is_training();
    model.eval();
    double total = 0, correct = 0, count = 0;
    for (const Batch& b : batches) {
        Tensor logits = model.forward(b.ids, b.padding & extra);
        const std::vector<std::int64_t> t = b.targets.to_vector<std::int64_t>();
        const std::vector<std::int64_t> guess = argmax(logits, -1).to_vector<std::int64_t>();
        double n = 0;
        for (std::size_t i = 0; i < t.size(); ++i)
            if (t[i] != nn::kIgnoreIndex) n += 1, correct += guess[i] == t[i];
        total += nn::cross_entropy(logits, b.targets).item() * n;
        count += n;
    }
    model.train(was_training);
    return {total / count, correct / count, NAN};
}

HeldOut held_out_of(const nn::LoadedCheckpoint& ck, const std::string& path, const std::string& corpus) {
    StoredRun run;
    try {
        run = stored_run(ck, path);
    } catch (const ValueError& e) {
        throw ValueError("'" + path + "' holds no training run, so no held-out data to measure on (" + e.what() + ")");
    }
    TrainConfig c = run.config;
    if (c.corpus.empty() && !corpus.empty())
        throw CorpusMismatch("--corpus '" + corpus + "': '" + path + "' is a model of the toy grammar, not of a corpus");
    if (!c.corpus.empty()) {  // checked before it is split: the last tenth of another text is not held out
        if (!corpus.empty()) c.corpus = corpus;
        if (!std::filesystem::is_regular_file(c.corpus))
            throw CorpusMismatch("'" + path + "' was trained on corpus '" + c.corpus + "', which is not a file here; give --corpus "
                                 "with the path of that text");
        const DataIdentity found = identify_corpus(c.corpus, read_file(c.corpus));
        if (!(found == run.data))
            throw CorpusMismatch("corpus " + describe(found) + " is not the text '" + path + "' was trained on, " +
                                 describe(run.data) + "; its last tenth would not be the held-out text");
    }
    HeldOut h;
    const BatchSource source(c);
    if (source.vocab() != ck.info.vocab)
        throw ValueError("'" + path + "': its vocabulary (" + std::to_string(ck.info.vocab.size()) + " tokens) is not its data's (" +
                         std::to_string(source.vocab().size()) + " tokens)");
    h.batches = source.validation(&h.floor);
    const std::string size = std::to_string(c.val_batches) + " batches of " + std::to_string(c.batch) + " x " +
                             std::to_string(c.context) + " tokens";
    h.description = c.corpus.empty() ? "the toy grammar's validation set: " + size
                                     : "windows of the held-out last tenth of '" + c.corpus + "': " + size;
    return h;
}

}  // namespace attnlab::lab
