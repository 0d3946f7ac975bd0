// bench_workloads.cpp — attnlab on the workloads of ../shared/bench/BENCHMARKS.md,
// defined exactly as torch_peer.py defines them, so the two can be divided:
//
//   W1 toy MHA: d_model 64, 4 heads, x (1, 6, 64); forward + backward of out.sum(), grads reset
//   W2 mid MHA: d_model 128, 8 heads, x (8, 128, 128); same
//   W3 attention forward, B 1, H 8, d_k 64, T in {64 ... 2048}: softmax(QKᵀ/√d_k)V, no grad
//      attn_fwd_T{T}       composed, as torch_peer.py's explicit version (scores materialised)
//      flash_fwd_T{T}      fused (nn/flash_attention.hpp); compare_table.py sets it beside
//                          torch_peer.py's sdpa_fwd_T{T}, PyTorch's own fused path
//   W3b forward + backward of W3 on the fused path (q, k, v require grad, upstream gradient
//      fixed): flash_fwd_bwd_T{T}; torch_peer.py has no such workload, so no PyTorch column
//   W4 toy causal LM training step (vocab 64, d 64, 4 heads, 2 layers, T 32, batch 16, AdamW 3e-4;
//      bench/w4.hpp, which bench_sharded_step.cpp shares; each step timed alone, 10 warm-up, 50 timed):
//      toy_lm_train_step the whole batch at once, as make train; toy_lm_train_step_2shards split in
//      2 shards as tinygpt train --shards 2 (nn/data_parallel.hpp; compare_table.py sets it beside
//      torch_peer.py's toy_lm_train_step): on 2 threads the shards run at once
//   W7 nanoGPT's CPU recipe for tiny Shakespeare, one training step (nanogpt_cpu_train_step)
//   W8 exact attention forward + backward, B 1, H 8, d_k 64, T 512/1024/2048 (attention_fwd_bwd_T{T})
//   W6 greedy generation of 256 tokens from a 1-token prompt with the W4 model, recomputing
//      the last ≤ 32 tokens each step (learned positions, context 32; no KV cache)
//   fma_peak one core's multiply-add peak: 1 GFLOP of vector FMAs per call, in registers
//      (compare_table.py's limit for the attention rows: their GFLOP/s as a share of it)
//   gemm_w7_* W7's matrix products one at a time, at its shapes and operand layouts, with
//      their count per step (per_step) and GFLOP/s by wall and by CPU time
//   kernel_* single ops at W4's shapes, to see what a change to one kernel buys (no PyTorch
//      column): kernel_gelu_16x32x256 (value and derivative, as training computes them),
//      kernel_layer_norm_16x32x64 (forward + backward), kernel_flash_fwd_16x4x32x16 (causal,
//      rows of 32 keys); and W7's attention, kernel_flash_fwd_bwd_12x4x64x32 (causal, forward
//      + backward: four of them a step)
//
// Timing as torch_peer.py: warm-up (≥ 3 calls and ≥ 0.2 s), an inner loop calibrated
// to ~0.15 s, 7 repetitions, the median per call (lab::time_median, which phase 5's cost
// plot uses too). Each line also reports, per call in the steady state (over a few calls
// after the timing), the minor page faults (getrusage: a nonzero count means memory went
// back to the kernel and was faulted in again), the jobs handed to the thread pool, how
// many of them had to wake a sleeping worker, the calling thread's time inside them, of
// that its wait for workers' chunks, and the call's time outside them, which ran on one
// thread (tensor/parallel.hpp), and the process's CPU time (all threads, spinning workers
// included): on one thread it is the call's time without the slices the scheduler gave to
// other programs, the steadier number on a shared machine. Usage:
//   build/bench_workloads [--threads N] [--only REGEX] [--json PATH]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <regex.h>
#include <sys/resource.h>
#include <time.h>

#include "app/options.hpp"
#include "autograd/node.hpp"
#include "bench/w4.hpp"
#include "experiments/attention_cost.hpp"  // lab::time_median, the timing loop torch_peer.py uses
#include "nn/flash_attention.hpp"
#include "nn/layers.hpp"
#include "io/fileio.hpp"
#include "tensor/gemm.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/vec_math.hpp"

using namespace attnlab;

namespace {

// --only: a POSIX extended regular expression, as grep -E reads it (regcomp). The patterns
// bench/*.sh pass (alternation, groups, anchors) read the same in std::regex's default
// grammar, but <regex>'s templates were over half of this file's compile time, for one
// search per workload name.
class NameFilter {
public:
    explicit NameFilter(const std::string& pattern) {
        if (const int err = regcomp(&re_, pattern.c_str(), REG_EXTENDED | REG_NOSUB)) {
            char why[256];
            regerror(err, &re_, why, sizeof why);
            throw std::invalid_argument(why);
        }
    }
    ~NameFilter() { regfree(&re_); }
    NameFilter(const NameFilter&) = delete;
    NameFilter& operator=(const NameFilter&) = delete;
    bool operator()(const std::string& name) const { return regexec(&re_, name.c_str(), 0, nullptr, 0) == 0; }

private:
    regex_t re_;
};

// Per call, after the timing: see the header comment.
struct SteadyState {
    double page_faults, pool_jobs, pool_wakes, pool_ms, pool_wait_ms, outside_pool_ms, cpu_ms;
};

struct Result {
    std::string name;
    double median_ms, min_ms, max_ms;
    std::string extra;
    SteadyState steady;
};

double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// What `calls` calls of fn cost beside time, per call (run after the timing's warm-up).
SteadyState steady_state(const std::function<void()>& fn, int calls) {
    const long faults = minor_faults();
    const PoolCounts pool = pool_counts();
    const double cpu = process_cpu_ms();
    const auto wall = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) fn();
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall).count();
    const double cpu_now = process_cpu_ms();
    const PoolCounts now = pool_counts();
    const auto per_call = [calls](double n) { return n / calls; };
    const double pool_ms = static_cast<double>(now.job_ns - pool.job_ns) * 1e-6;
    return {per_call(static_cast<double>(minor_faults() - faults)), per_call(static_cast<double>(now.jobs - pool.jobs)),
            per_call(static_cast<double>(now.wakes - pool.wakes)), per_call(pool_ms),
            per_call(static_cast<double>(now.wait_ns - pool.wait_ns) * 1e-6), per_call(wall_ms - pool_ms), per_call(cpu_now - cpu)};
}

Result summarise(const std::string& name, const lab::Timing& t, const SteadyState& steady, const std::string& extra = "") {
    char f[256];
    std::snprintf(f, sizeof f,
                  "page_faults_per_iter=%.0f pool_jobs_per_iter=%.4g pool_wakes_per_iter=%.4g pool_ms_per_iter=%.4g "
                  "pool_wait_ms_per_iter=%.4g outside_pool_ms_per_iter=%.4g cpu_ms_per_iter=%.4g",
                  steady.page_faults, steady.pool_jobs, steady.pool_wakes, steady.pool_ms, steady.pool_wait_ms,
                  steady.outside_pool_ms, steady.cpu_ms);
    Result r{name, t.median_ms, t.min_ms, t.max_ms, extra.empty() ? f : extra + " " + f, steady};
    std::printf("%s: %.4f ms (%.4f..%.4f)  %s\n", name.c_str(), r.median_ms, r.min_ms, r.max_ms, r.extra.c_str());
    std::fflush(stdout);
    return r;
}

Result mha_fwd_bwd(const std::string& name, std::int64_t d, std::int64_t h, const Shape& shape) {
    manual_seed(0);
    nn::MultiHeadAttention mha(d, h);
    Tensor x = randn(shape).requires_grad_();
    auto step = [&] {
        x.zero_grad();
        mha.zero_grad();
        mha.forward(x).output.sum().backward();
    };
    const lab::Timing t = lab::time_median(step);
    return summarise(name, t, steady_state(step, 10));
}

// W3 and W3b on the fused path, inputs as W3's composed rows (seed 0, [1, 8, T, 64]).
void fused_attention(std::int64_t T, const NameFilter& want, std::vector<Result>& results) {
    const std::string fwd = "flash_fwd_T" + std::to_string(T), fwd_bwd = "flash_fwd_bwd_T" + std::to_string(T);
    if (!want(fwd) && !want(fwd_bwd)) return;
    manual_seed(0);
    const Tensor q = randn({1, 8, T, 64}), k = randn({1, 8, T, 64}), v = randn({1, 8, T, 64}), g = randn({1, 8, T, 64});
    const double flops = 2.0 * 2.0 * 8 * static_cast<double>(T) * T * 64;  // QKᵀ and weights·V; backward: 2× more
    const double rep_s = T >= 1024 ? 0.0 : 0.15;
    auto record = [&](const std::string& name, const std::function<void()>& fn, double f) {
        const lab::Timing t = lab::time_median(fn, 7, rep_s);
        char extra[64];
        std::snprintf(extra, sizeof extra, "GFLOPs=%.1f", f / (t.median_ms * 1e6));
        results.push_back(summarise(name, t, steady_state(fn, T >= 1024 ? 2 : 10), extra));
    };
    if (want(fwd)) {
        NoGradGuard no_grad;
        record(fwd, [&] { nn::flash_attention(q, k, v); }, flops);
    }
    if (want(fwd_bwd)) {
        Tensor qg = q.detach().requires_grad_(), kg = k.detach().requires_grad_(), vg = v.detach().requires_grad_();
        record(fwd_bwd, [&] {
            qg.zero_grad(), kg.zero_grad(), vg.zero_grad();
            nn::flash_attention(qg, kg, vg).backward(g);
        }, 3 * flops);
    }
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options flags("bench_workloads", "attnlab's workloads W1-W8, and single kernels at W4's shapes, timed (bench/compare.sh sets them beside PyTorch).");
    flags.add("threads", "N", "1", "threads of the parallel kernels");
    flags.add("only", "REGEX", ".*", "run only the workloads whose name matches (an extended regular expression, as grep -E)");
    flags.add("json", "PATH", "", "also write the results as JSON to PATH");
    flags.parse(argc, argv);
    const int threads = static_cast<int>(flags.integer("threads", 1, 256));
    const std::string only = flags.text("only"), json_path = flags.text("json");
    std::unique_ptr<NameFilter> filter;
    try {
        filter = std::make_unique<NameFilter>(only);
    } catch (const std::invalid_argument& e) {
        flags.fail("only", std::string("not a regular expression: ") + e.what());
    }
    const NameFilter& want = *filter;
    set_num_threads(threads);
    std::printf("# attnlab threads=%d\n", threads);
    std::vector<Result> results;

    if (want("toy_mha_fwd_bwd")) results.push_back(mha_fwd_bwd("toy_mha_fwd_bwd", 64, 4, {1, 6, 64}));
    if (want("mid_mha_fwd_bwd")) results.push_back(mha_fwd_bwd("mid_mha_fwd_bwd", 128, 8, {8, 128, 128}));

    for (std::int64_t T : {64, 128, 256, 512, 1024, 2048}) {
        const std::string name = "attn_fwd_T" + std::to_string(T);
        if (!want(name)) continue;
        manual_seed(0);
        Tensor q = randn({1, 8, T, 64}), k = randn({1, 8, T, 64}), v = randn({1, 8, T, 64});
        NoGradGuard no_grad;
        auto attention = [&] { matmul(softmax(matmul(q, k.mT()) / 8.0, -1), v); };
        const lab::Timing t = lab::time_median(attention, 7, T >= 1024 ? 0.0 : 0.15);
        const double flops = 2.0 * 2.0 * 8 * static_cast<double>(T) * T * 64;  // QKᵀ and weights·V
        char extra[64];
        std::snprintf(extra, sizeof extra, "matmul_GFLOPs=%.3f", flops / (t.median_ms * 1e6));
        results.push_back(summarise(name, t, steady_state(attention, T >= 1024 ? 2 : 10), extra));
    }
    for (std::int64_t T : {64, 128, 256, 512, 1024, 2048}) fused_attention(T, want, results);

    // W4 as make train takes the step (the whole batch), and split in 2 shards as `tinygpt train
    // --shards 2` does: on 2 threads the two halves of the batch run at once.
    for (const int shards : {1, 2}) {
        const std::string name = shards == 1 ? "toy_lm_train_step" : "toy_lm_train_step_2shards";
        if (!want(name)) continue;
        nn::Transformer model(bench::w4_config(), 0);
        nn::AdamW opt(model.named_parameters(), bench::kW4LearningRate);
        nn::DataParallel parallel(model, shards);
        const bench::W4Batch batch = bench::w4_batch();
        double loss = 0;
        auto step = [&] { loss = bench::w4_step(parallel, opt, batch.x, batch.y); };
        const std::vector<double> ms = bench::time_steps(step);  // one step at a time: see w4.hpp
        const lab::Timing t{ms[ms.size() / 2], ms.front(), ms.back()};
        const double final_loss = loss;  // after step 60, as torch_peer.py reports it
        const SteadyState steady = steady_state(step, 10);
        char extra[96];
        std::snprintf(extra, sizeof extra, "params=%lld final_loss=%.3f tokens_per_s=%.0f",
                      static_cast<long long>(model.parameter_count()), final_loss,
                      bench::kW4Batch * bench::kW4T / (t.median_ms / 1e3));
        results.push_back(summarise(name, t, steady, extra));
    }

    // W7, nanoGPT's CPU recipe for tiny Shakespeare: vocab 65, d_model 128, 4 heads, 4 layers,
    // context 64, batch 12, AdamW lr 1e-3 betas (0.9, 0.99) weight decay 0.1, clip 1.0. One
    // step = zero grads + forward + loss + backward + clip + AdamW, as `make shakespeare` takes
    // it (shards 1), on random tokens as torch_peer.py's nanogpt_cpu_train_step.
    if (want("nanogpt_cpu_train_step")) {
        constexpr std::int64_t V = 65, d_model = 128, n_heads = 4, n_layers = 4, T = 64, B = 12;
        nn::TransformerConfig config;
        config.vocab_size = V, config.d_model = d_model, config.n_heads = n_heads, config.n_layers = n_layers;
        config.context = T, config.causal = true;
        nn::Transformer model(config, 0);
        nn::AdamW opt(model.named_parameters(), 1e-3, 0.9, 0.99, 1e-8, 0.1);
        nn::DataParallel parallel(model, 1);
        Generator gen(7);
        const Tensor ids = randint(0, V, {B, T + 1}, gen);
        const Tensor x = ids.narrow(1, 0, T).contiguous(), y = ids.narrow(1, 1, T).contiguous();
        double loss = 0;
        auto step = [&] {
            opt.zero_grad();
            loss = parallel.forward_backward(x, y);
            nn::clip_grad_norm(model.parameters(), 1.0);
            opt.step();
        };
        const std::vector<double> ms = bench::time_steps(step);
        const lab::Timing t{ms[ms.size() / 2], ms.front(), ms.back()};
        const SteadyState steady = steady_state(step, 10);
        // FLOPs per step, as nanoGPT's estimate_mfu counts them (the PaLM paper's appendix B):
        // 6 per non-embedding parameter per token (forward 2, backward 4), plus the attention
        // products, 12 · n_layers · d_model · T per token (QKᵀ and P·V, forward and backward;
        // the causal half that is masked counts too, as there).
        const double non_embedding = static_cast<double>(model.parameter_count() - V * d_model - T * d_model);
        const double tokens = static_cast<double>(B * T);
        const double flops = (6 * non_embedding + 12.0 * n_layers * d_model * T) * tokens;
        char extra[128];
        std::snprintf(extra, sizeof extra, "params=%lld loss=%.3f GFLOPs=%.1f", static_cast<long long>(model.parameter_count()),
                      loss, flops / (t.median_ms * 1e6));
        results.push_back(summarise("nanogpt_cpu_train_step", t, steady, extra));
    }

    // W8, exact attention forward + backward without a mask, B 1, H 8, d_k 64: o = attention(q, k, v),
    // o.sum().backward(), on the fused path. GFLOPs counts the products, 12 · H · T² · d_k per call
    // (QKᵀ and P·V forward; dV, dP, dQ and dK backward), as W3b and compare_table.py do.
    for (std::int64_t T : {512, 1024, 2048}) {
        const std::string name = "attention_fwd_bwd_T" + std::to_string(T);
        if (!want(name)) continue;
        manual_seed(T);
        Tensor q = randn({1, 8, T, 64}).requires_grad_(), k = randn({1, 8, T, 64}).requires_grad_(),
               v = randn({1, 8, T, 64}).requires_grad_();
        auto fwd_bwd = [&] {
            q.zero_grad(), k.zero_grad(), v.zero_grad();
            nn::flash_attention(q, k, v).sum().backward();
        };
        const lab::Timing t = lab::time_median(fwd_bwd, 7, T >= 1024 ? 0.0 : 0.15);
        char extra[64];
        std::snprintf(extra, sizeof extra, "GFLOPs=%.1f", 12.0 * 8 * static_cast<double>(T) * T * 64 / (t.median_ms * 1e6));
        results.push_back(summarise(name, t, steady_state(fwd_bwd, T >= 1024 ? 2 : 10), extra));
    }

    if (want("generate_256")) {
        nn::Transformer model(bench::w4_config(), 0);
        model.eval();
        NoGradGuard no_grad;
        std::vector<std::int64_t> tokens;
        auto generate = [&] {
            tokens.assign(1, 0);
            for (int i = 0; i < 256; ++i) {
                const std::int64_t start = std::max<std::int64_t>(0, static_cast<std::int64_t>(tokens.size()) - 32);
                std::vector<std::int64_t> window(tokens.begin() + start, tokens.end());
                Tensor logits = model.forward(from_vector(window, {1, static_cast<std::int64_t>(window.size())}));
                tokens.push_back(static_cast<std::int64_t>(argmax(logits.select(1, -1), -1).item()));
            }
        };
        const lab::Timing t = lab::time_median(generate, 7, 0.0);
        char extra[64];
        std::snprintf(extra, sizeof extra, "new_tokens=256 ms_per_token=%.3f", t.median_ms / 256);
        results.push_back(summarise("generate_256", t, steady_state(generate, 1), extra));
    }

    // One core's peak: 16 independent chains of vector multiply-adds (two FMA units of 4-cycle
    // latency need 8 in flight), all in registers, 1 GFLOP per call, so its median_ms is the ms
    // per GFLOP. Run at 1 thread; compare_table.py multiplies by the thread count.
    if (want("fma_peak")) {
        using detail::vec::VF, detail::vec::kLanes;
        constexpr int kChains = 16;
        constexpr std::int64_t kSteps = 1'000'000'000 / (2 * kLanes * kChains);  // exact for 4, 8, 16 lanes
        volatile float sink = 0;  // the sums leave the loop, so it is not removed
        auto fma_loop = [&] {
            VF acc[kChains];
            for (int c = 0; c < kChains; ++c) acc[c] = VF{} + static_cast<float>(c);
            const VF m = VF{} + 0.999999f, b = VF{} + 1e-6f;  // converges to 1: no overflow, no subnormals
            for (std::int64_t s = 0; s < kSteps; ++s) {
#pragma GCC unroll 16
                for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * m + b;  // one vfmadd each (-O2 contracts)
            }
            float total = 0;
            for (int c = 0; c < kChains; ++c)
                for (int l = 0; l < kLanes; ++l) total += acc[c][l];
            sink = sink + total;
        };
        const lab::Timing t = lab::time_median(fma_loop, 7, 0.05);
        char extra[32];
        std::snprintf(extra, sizeof extra, "GFLOPs=%.1f", 1e3 / t.median_ms);
        results.push_back(summarise("fma_peak", t, steady_state(fma_loop, 5), extra));
    }

    // W7's matrix products one at a time, as its step runs them through gemm (tensor/gemm.hpp):
    // rows = B·T = 768 tokens; every Linear [out N, in K] forward reads Wᵀ through W's strides
    // (column-major B), its input gradient is g·W (row-major B), its weight gradient (gᵀx)ᵀ,
    // computed as gᵀ [N, 768] · x [768, K] with gᵀ read through g's strides (matmul.cpp's
    // matmul_backward). Per step each runs `per_step` times: 4 layers of q, k, v and W_O (d×d),
    // fc1 (d -> 4d), fc2 (4d -> d), and the head once (d -> V 65). GFLOPs: 2·M·N·K per call.
    {
        struct Product {
            const char* role;
            std::int64_t M, N, K;
            bool a_transposed, b_transposed;  // A read as the transpose of a row-major matrix; B likewise
            int per_step;
        };
        constexpr std::int64_t rows = 768, d = 128, hidden = 512, V = 65;
        const Product products[] = {
            {"fwd_qkvo", rows, d, d, false, true, 16},         {"fwd_fc1", rows, hidden, d, false, true, 4},
            {"fwd_fc2", rows, d, hidden, false, true, 4},      {"fwd_head", rows, V, d, false, true, 1},
            {"dx_qkvo", rows, d, d, false, false, 16},         {"dx_fc1", rows, d, hidden, false, false, 4},
            {"dx_fc2", rows, hidden, d, false, false, 4},      {"dx_head", rows, d, V, false, false, 1},
            {"dw_qkvo", d, d, rows, true, false, 16},          {"dw_fc1", hidden, d, rows, true, false, 4},
            {"dw_fc2", d, hidden, rows, true, false, 4},       {"dw_head", V, d, rows, true, false, 1},
        };
        for (const Product& p : products) {
            const std::string name = "gemm_w7_" + std::string(p.role) + "_" + std::to_string(p.M) + "x" + std::to_string(p.N) +
                                     "x" + std::to_string(p.K);
            if (!want(name)) continue;
            manual_seed(0);
            const Tensor a = randn({p.M, p.K}), b = randn({p.K, p.N});
            // A transposed operand lives as its row-major transpose and is read through swapped strides.
            const Tensor a_mem = p.a_transposed ? a.mT().contiguous() : a, b_mem = p.b_transposed ? b.mT().contiguous() : b;
            Tensor c = empty({p.M, p.N});
            const std::int64_t a_rs = p.a_transposed ? 1 : p.K, a_cs = p.a_transposed ? p.M : 1;
            const std::int64_t b_rs = p.b_transposed ? 1 : p.N, b_cs = p.b_transposed ? p.K : 1;
            auto product = [&] {
                gemm<float>(p.M, p.N, p.K, a_mem.const_data_ptr<float>(), a_rs, a_cs, b_mem.const_data_ptr<float>(), b_rs, b_cs,
                            nullptr, c.data_ptr<float>(), p.N, false);
            };
            const lab::Timing t = lab::time_median(product, 7, 0.05);
            const SteadyState steady = steady_state(product, 200);
            const double flops = 2.0 * static_cast<double>(p.M * p.N * p.K);
            char extra[96];
            std::snprintf(extra, sizeof extra, "per_step=%d GFLOPs=%.1f cpu_GFLOPs=%.1f", p.per_step, flops / (t.median_ms * 1e6),
                          flops / (steady.cpu_ms * 1e6));
            results.push_back(summarise(name, t, steady, extra));
        }
    }

    // Single kernels at W4's shapes, and W7's attention (seed 0).
    auto kernel = [&](const std::string& name, const std::function<void()>& fn) {
        if (!want(name)) return;
        const lab::Timing t = lab::time_median(fn);
        results.push_back(summarise(name, t, steady_state(fn, 10)));
    };
    {
        manual_seed(0);
        const Tensor h = randn({16, 32, 256}).requires_grad_();  // the feed-forward's hidden layer
        kernel("kernel_gelu_16x32x256", [&] { gelu(h); });
        Tensor x = randn({16, 32, 64}).requires_grad_();
        const Tensor g = randn({16, 32, 64});
        Tensor w = (randn({64}) * 0.1 + 1.0).requires_grad_(), b = (randn({64}) * 0.1).requires_grad_();
        kernel("kernel_layer_norm_16x32x64", [&] {
            x.zero_grad(), w.zero_grad(), b.zero_grad();
            nn::layer_norm(x, w, b).backward(g);
        });
        const Tensor q = randn({16, 4, 32, 16}), k = randn({16, 4, 32, 16}), v = randn({16, 4, 32, 16});
        const nn::Mask causal = nn::Mask::causal(32);
        kernel("kernel_flash_fwd_16x4x32x16", [&] {
            NoGradGuard no_grad;
            nn::flash_attention(q, k, v, causal);
        });
        // W7's attention, forward and backward: batch 12, 4 heads, T 64, d_k 32, causal.
        Tensor q7 = randn({12, 4, 64, 32}).requires_grad_(), k7 = randn({12, 4, 64, 32}).requires_grad_(),
               v7 = randn({12, 4, 64, 32}).requires_grad_();
        const Tensor g7 = randn({12, 4, 64, 32});
        const nn::Mask causal64 = nn::Mask::causal(64);
        kernel("kernel_flash_fwd_bwd_12x4x64x32", [&] {
            q7.zero_grad(), k7.zero_grad(), v7.zero_grad();
            nn::flash_attention(q7, k7, v7, causal64).backward(g7);
        });
    }

    if (!json_path.empty()) {
        std::string j = "{\"threads\": " + std::to_string(threads) + ", \"results\": [";
        for (std::size_t i = 0; i < results.size(); ++i) {
            const SteadyState& st = results[i].steady;
            char buf[512];
            std::snprintf(buf, sizeof buf, "%s{\"name\": \"%s\", \"median_ms\": %.6f, \"min_ms\": %.6f, \"max_ms\": %.6f, "
                          "\"page_faults_per_iter\": %.1f, \"pool_jobs_per_iter\": %.4g, \"pool_wakes_per_iter\": %.4g, "
                          "\"pool_ms_per_iter\": %.6g, \"pool_wait_ms_per_iter\": %.6g, \"outside_pool_ms_per_iter\": %.6g, "
                          "\"cpu_ms_per_iter\": %.6g}",
                          i ? ", " : "", results[i].name.c_str(), results[i].median_ms, results[i].min_ms, results[i].max_ms,
                          st.page_faults, st.pool_jobs, st.pool_wakes, st.pool_ms, st.pool_wait_ms, st.outside_pool_ms, st.cpu_ms);
            j += buf;
        }
        write_file_atomic(json_path, j + "]}\n");
    }
    return 0;
}
