// vocab.cpp — tinygpt vocab: every token a model knows, and how often its corpus holds it.
//
// A prompt can only use these tokens; every unknown-word error lists the nearest of them.
// A corpus model's counts come from its checkpoint ("token_counts", written by the trainer
// from the whole text, its held-out tenth included); the grammar's models have none, as
// their sentences are drawn from rules, not read from a text.
#include "tools/tinygpt/common.hpp"

#include <algorithm>
#include <numeric>

#include "app/report.hpp"
#include "data/vocab.hpp"
#include "training/run_config.hpp"

namespace attnlab::tinygpt {

void declare_vocab(lab::Options& o) {
    o.add_path("checkpoint", "PATH", "", "the model (tinygpt train writes it)");
    o.add("sort", "ORDER", "id", "id (the vocabulary's order) or count (most frequent first: a corpus model's)");
}

namespace {

// "the toy grammar", "the words of 'notes.txt' (lowercased, punctuation split)", "the characters of 'a.txt'".
std::string trained_on(const nn::LoadedCheckpoint& ck, const std::string& path) {
    const auto corpus = ck.metadata.find("corpus");
    if (corpus == ck.metadata.end() || corpus->second.empty()) return "the toy grammar's words";
    if (is_chars(ck)) return "the characters of '" + corpus->second + "'";
    const data::WordRules rules = lab::word_rules(ck, path);
    std::string how;
    if (rules.lowercase) how += "lowercased";
    if (rules.split_punctuation) how += std::string(how.empty() ? "" : ", ") + "punctuation split";
    return "the words of '" + corpus->second + "'" + (how.empty() ? "" : " (" + how + ")");
}

}  // namespace

int cmd_vocab(const lab::Options& o) {
    const std::string sort = o.choice("sort", {"id", "count"});
    const nn::LoadedCheckpoint ck = load(o);
    const std::string path = o.text("checkpoint");
    const std::optional<std::vector<std::int64_t>> counts = lab::token_counts(ck, path);
    const bool corpus = ck.metadata.contains("corpus") && !ck.metadata.at("corpus").empty();
    if (sort == "count" && !counts)
        throw UsageError("--sort count: '" + path + "' records no token counts (" +
                         (corpus ? "it was trained before attnlab recorded them"
                                 : "a model of the grammar: its sentences are drawn from rules, not read from a text") +
                         "); give --sort id");

    const auto n = static_cast<std::int64_t>(ck.info.vocab.size());
    const std::int64_t specials = is_chars(ck) ? 1 : data::Vocab::kFirstWord;
    std::printf("tinygpt vocab: '%s' knows %lld tokens of %s: %lld special, %lld %s\n", path.c_str(),
                static_cast<long long>(n), trained_on(ck, path).c_str(), static_cast<long long>(specials),
                static_cast<long long>(n - specials), is_chars(ck) ? "characters" : "words");
    if (corpus && !counts) std::printf("(no counts: it was trained before attnlab recorded them)\n");

    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    if (sort == "count")
        std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
            return (*counts)[static_cast<std::size_t>(a)] > (*counts)[static_cast<std::size_t>(b)];
        });
    int width = 5;
    for (std::int64_t id = 0; id < n; ++id) width = std::max(width, static_cast<int>(label(ck, id).size()));
    std::vector<lab::Column> columns{{"id", "id", 6, -1}, {"token", "token", width, -1}};
    if (counts) columns.insert(columns.end(), {{"count", "count", 9, -1}, {"share", "share %", 7, 2}});
    lab::Table table(columns, "  ");
    table.print_header();
    const double total = counts ? static_cast<double>(std::accumulate(counts->begin(), counts->end(), std::int64_t{0})) : 0;
    for (std::int64_t id : order) {
        std::vector<Json> row{id, label(ck, id)};
        if (counts) {
            const std::int64_t c = (*counts)[static_cast<std::size_t>(id)];
            row.insert(row.end(), {c, total > 0 ? 100.0 * static_cast<double>(c) / total : 0.0});
        }
        table.row(row);
    }
    return 0;
}

}  // namespace attnlab::tinygpt
