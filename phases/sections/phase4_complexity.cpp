// phase4_complexity.cpp — the bodies of phases/phase4_complexity.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase4_complexity.hpp"

namespace attnlab::phase4 {

using namespace attnlab::phase;

double macs_qk(double n, double d) { return n * n * d; }             // Q Kᵀ of one layer, all heads

double weight_bytes(double n) { return n * n * 4; }                   // one head's n×n float32 weights

double kv_token_ratio(double p, double N) {
    double without = 0;
    for (double k = 0; k < N; ++k) without += p + k;
    return without / (p + N - 1);
}

double kv_score_ratio(double p, double N) {
    double without = 0, with = p * p;
    for (double k = 0; k < N; ++k) without += (p + k) * (p + k), with += k > 0 ? p + k : 0;
    return without / with;
}

void section5b_complexity(Frame& p, const nn::TransformerConfig& c, std::int64_t prompt_tokens) {
    section("5b. Complexity at GPT-2's size (n = 2048, d = 768), recomputed, and ours");
    const double MiB = 1024.0 * 1024.0;
    lab::Table claims({{"quantity", "quantity (n = 2048, d = 768)", 44, -1}, {"course", "course", 9, 3},
                     {"computed", "computed", 9, 3}, {"unit", "unit", 12, -1}}, "  ");
    claims.print_header();
    claims.row({"Q K^T multiply-adds per layer", 3.2, macs_qk(2048, 768) / 1e9, "billion"});
    claims.row({"... with weights V, in flops (x 2 x 2)", 3.2, 4 * macs_qk(2048, 768) / 1e9, "billion"});
    claims.row({"Q K^T multiply-adds, 12 layers", 38.0, 12 * macs_qk(2048, 768) / 1e9, "billion"});
    claims.row({"weights per head", 4.2, 2048.0 * 2048 / 1e6, "million"});
    claims.row({"bytes per head (float32)", 16.8, weight_bytes(2048) / 1e6, "MB (10^6)"});
    claims.row({"bytes per head (float32)", 16.8, weight_bytes(2048) / MiB, "MiB"});
    claims.row({"8 heads x 12 layers", 1.6, 96 * weight_bytes(2048) / 1e9, "GB (10^9)"});
    std::printf("  (the course's counts are right: its 'operations' are Q K^T's multiply-adds, its MB decimal)\n");

    const double d = static_cast<double>(c.d_model), H = static_cast<double>(c.n_heads), L = static_cast<double>(c.n_layers);
    lab::Table ours({{"n", "n", 6, -1}, {"qk_macs_per_layer", "QK^T MACs/layer", 15, 0}, {"mib_per_head", "MiB/head", 9, 3},
                     {"mib_all_heads_layers", "MiB, all heads x layers", 23, 3}}, "  ");
    std::printf("  our TinyGPT (d_model %lld, %lld heads, %lld layers) at n = 2048 and at ours:\n",
                static_cast<long long>(c.d_model), static_cast<long long>(c.n_heads), static_cast<long long>(c.n_layers));
    ours.print_header();
    for (double n : {static_cast<double>(c.context), 259.0, 2048.0})
        ours.row({static_cast<std::int64_t>(n), macs_qk(n, d), weight_bytes(n) / MiB, H * L * weight_bytes(n) / MiB});

    // The KV cache: phase 4's measured speed-up (step 5, untrained model of context 259), beside the work it saves.
    const Json& kv = p.m.at("generation").at("kv_cache").at("context_259_random");
    const double N = static_cast<double>(kv.at("new_tokens").as_int64()), prompt = static_cast<double>(prompt_tokens);
    lab::Table cache({{"measure", "KV cache, " + std::to_string(static_cast<int>(N)) + " new tokens", 44, -1}, {"value", "value", 9, 1}}, "  ");
    cache.print_header();
    cache.row({"tokens run through the model, without / with", kv_token_ratio(prompt, N)});
    cache.row({"score multiply-adds, without / with", kv_score_ratio(prompt, N)});
    cache.row({"measured speed-up (step 5, this machine)", kv.at("speedup").as_double()});
    cache.row({"the same work ratio at n = 2048 (tokens)", kv_token_ratio(prompt, 2048 - prompt)});
    std::printf("  KV caching is often said to be 50-500 times faster: the work saved grows with the length (~n/2); at 256 tokens our measured\n"
                "  speed-up is below the work ratio, since each cached step is many small operations.\n");
    p.m["attention_complexity"] = Json::Object{{"course_claims", claims.json()}, {"ours", ours.json()}, {"kv_cache", cache.json_by("measure")}};
}

}  // namespace attnlab::phase4
