// bench_matmul.cpp — workload W5: float32 matrix multiply throughput.
//
// Measures C = A·B for square n x n row-major matrices:
//   n in {256, 512, 1024}  reported as GFLOP/s = 2n^3 / t
//   n in {16, 64}          reported as ns per call (per-call overhead matters at toy sizes)
// each on 1 and 2 threads, for attnlab's built-in kernel and, in the BLAS=openblas
// build, for OpenBLAS too (labelled with the CPU core type OpenBLAS chose), case by case
// back to back, with the built-in kernel's GFLOP/s as a share of OpenBLAS's.
// Every case gets one warm-up call, then the median time of at least 5 timed
// samples spanning at least 0.3 s; tiny sizes batch many calls per sample so the
// clock's resolution does not matter. Before timing, each implementation is
// checked against gemm_reference once, so a fast wrong kernel cannot post a number.
//
// Output: one line per case on stdout, and JSON (with machine info) written to
// out/bench/matmul.json, or matmul_openblas.json in the OpenBLAS build;
// a directory given as the first argument replaces out/bench.
//
// To add a case, extend kLargeSizes / kSmallSizes or the implementation list in main().
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "app/options.hpp"
#include "io/fileio.hpp"
#include "tensor/gemm.hpp"
#include "tensor/parallel.hpp"

#ifdef ATTNLAB_OPENBLAS
#include <cblas.h>
#endif

using namespace attnlab;

namespace {

using GemmFn = void (*)(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t, int64_t,
                        float*, int64_t, bool);

struct Impl {
    std::string name;
    GemmFn fn;
};

struct Result {
    std::string impl;
    int n, threads;
    double seconds;  // median time of one call
    int samples, calls_per_sample;
};

constexpr int kLargeSizes[] = {256, 512, 1024};
constexpr int kSmallSizes[] = {16, 64};
constexpr int kThreadCounts[] = {1, 2};
constexpr double kMinCaseSeconds = 0.3;
constexpr int kMinSamples = 5;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct Problem {
    int n;
    std::vector<float> a, b, c;
    explicit Problem(int size) : n(size), a(size_t(size) * size), b(a.size()), c(a.size()) {
        std::mt19937 rng(42);
        std::uniform_real_distribution<float> dist(-1, 1);
        for (float& x : a) x = dist(rng);
        for (float& x : b) x = dist(rng);
    }
    void run(GemmFn fn) { fn(n, n, n, a.data(), n, 1, b.data(), n, 1, c.data(), n, false); }
};

// Warm-up, then the median of >= kMinSamples samples covering >= kMinCaseSeconds.
Result measure(const Impl& impl, int n, int threads) {
    set_num_threads(threads);
#ifdef ATTNLAB_OPENBLAS
    // OpenBLAS's idle worker threads busy-wait for a while before they sleep
    // (its THREAD_TIMEOUT); on 2 cores that could steal the core our second
    // thread needs. Park OpenBLAS at one thread while timing anything else;
    // gemm() restores num_threads() itself on its next call.
    if (impl.fn != static_cast<GemmFn>(gemm<float>)) openblas_set_num_threads(1);
#endif
    Problem p(n);
    double t0 = now();
    p.run(impl.fn);  // warm-up: page faults, packing buffers, worker threads, OpenBLAS init
    const double first = std::max(now() - t0, 1e-9);
    const int calls = std::max(1, static_cast<int>(1e-3 / first));  // >= ~1 ms per sample
    const int samples = std::max(kMinSamples, static_cast<int>(kMinCaseSeconds / (first * calls)));
    std::vector<double> per_call;
    for (int s = 0; s < samples; ++s) {
        t0 = now();
        for (int c = 0; c < calls; ++c) p.run(impl.fn);
        per_call.push_back((now() - t0) / calls);
    }
    std::nth_element(per_call.begin(), per_call.begin() + samples / 2, per_call.end());
    return {impl.name, n, threads, per_call[static_cast<size_t>(samples / 2)], samples, calls};
}

// Largest |fast - reference| relative to the dot-product error bound K*eps*sum|a||b| (< 1 passes).
double check_against_reference(const Impl& impl, int n) {
    Problem p(n);
    p.run(impl.fn);
    std::vector<float> want(p.c.size());
    gemm_reference<float>(n, n, n, p.a.data(), n, 1, p.b.data(), n, 1, want.data(), n, false);
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int k = 0; k < n; ++k) s += std::abs(p.a[size_t(i) * n + k] * p.b[size_t(k) * n + j]);
            const double bound = 2.0 * n * std::numeric_limits<float>::epsilon() * s;
            worst = std::max(worst, std::abs(double(p.c[size_t(i) * n + j]) - want[size_t(i) * n + j]) / bound);
        }
    return worst;
}

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
    return "unknown";
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\';
        if (static_cast<unsigned char>(ch) >= 0x20) out += ch;
    }
    return out + "\"";
}

std::string to_json(const std::vector<Result>& large, const std::vector<Result>& small, const std::string& blas_core) {
    std::ostringstream j;
    j.precision(6);
    j << "{\n  \"workload\": \"W5\",\n  \"description\": \"float32 C = A*B, square n x n, row-major\",\n";
    j << "  \"machine\": {\"cpu\": " << json_string(cpu_model())
      << ", \"hardware_threads\": " << std::thread::hardware_concurrency()
      << ", \"compiler\": " << json_string(__VERSION__);
    if (!blas_core.empty()) {
        const char* env = std::getenv("OPENBLAS_CORETYPE");
        j << ", \"openblas_core\": " << json_string(blas_core)
          << ", \"OPENBLAS_CORETYPE\": " << json_string(env ? env : "");
    }
    j << "},\n  \"throughput\": [\n";
    for (size_t i = 0; i < large.size(); ++i) {
        const Result& r = large[i];
        j << "    {\"impl\": " << json_string(r.impl) << ", \"n\": " << r.n << ", \"threads\": " << r.threads
          << ", \"seconds\": " << r.seconds << ", \"gflops\": " << 2.0 * r.n * r.n * r.n / r.seconds * 1e-9
          << ", \"samples\": " << r.samples << "}" << (i + 1 < large.size() ? ",\n" : "\n");
    }
    j << "  ],\n  \"small\": [\n";
    for (size_t i = 0; i < small.size(); ++i) {
        const Result& r = small[i];
        j << "    {\"impl\": " << json_string(r.impl) << ", \"n\": " << r.n << ", \"threads\": " << r.threads
          << ", \"ns_per_call\": " << r.seconds * 1e9 << ", \"samples\": " << r.samples
          << ", \"calls_per_sample\": " << r.calls_per_sample << "}" << (i + 1 < small.size() ? ",\n" : "\n");
    }
    j << "  ]\n}\n";
    return j.str();
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options opt("bench_matmul", "W5: float32 matmul GFLOP/s of the built-in kernel (and OpenBLAS, if built with it), "
                                     "1 and 2 threads; writes DIR/matmul.json.");
    opt.add_folder("out", "out/bench", "where matmul.json goes (relative to the current folder, as every program's out/)");
    opt.parse(argc, argv);
    const std::string out_dir = opt.text("out");
    std::vector<Impl> impls{{"builtin", gemm_builtin<float>}};
    std::string blas_core, file = "matmul.json";
#ifdef ATTNLAB_OPENBLAS
    blas_core = openblas_get_corename();
    impls.push_back({"openblas/" + blas_core, gemm<float>});
    file = "matmul_openblas.json";
    const char* coretype = std::getenv("OPENBLAS_CORETYPE");
    std::printf("OpenBLAS %s, core type '%s' (OPENBLAS_CORETYPE=%s)\n", openblas_get_config(), blas_core.c_str(),
                coretype ? coretype : "unset");
#endif
    std::printf("W5 matmul, float32, CPU: %s, %u hardware threads\n", cpu_model().c_str(),
                std::thread::hardware_concurrency());

    for (const Impl& impl : impls) {
        const double err = check_against_reference(impl, 256);
        std::printf("%-18s n=256 vs gemm_reference: worst error %.3g of the rounding bound (%s)\n", impl.name.c_str(),
                    err, err < 1 ? "ok" : "FAILED");
        if (!(err < 1)) return 1;
    }

    // Case by case, every implementation back to back, so a noisy neighbour slows both
    // sides of a ratio alike (the built-in kernel's share of OpenBLAS's GFLOP/s).
    const int saved_threads = num_threads();
    std::vector<Result> large, small;
    for (int threads : kThreadCounts) {
        for (int n : kLargeSizes) {
            std::vector<double> gflops;
            for (const Impl& impl : impls) {
                const Result r = measure(impl, n, threads);
                gflops.push_back(2.0 * n * n * n / r.seconds * 1e-9);
                std::printf("%-18s n=%5d  threads=%d  %8.2f GFLOP/s  (median %.3f ms of %d)\n", r.impl.c_str(), n,
                            threads, gflops.back(), r.seconds * 1e3, r.samples);
                large.push_back(r);
            }
            if (gflops.size() == 2)
                std::printf("%-18s n=%5d  threads=%d  %7.1f%%\n", "builtin / openblas", n, threads, 100 * gflops[0] / gflops[1]);
        }
        for (int n : kSmallSizes)
            for (const Impl& impl : impls) {
                const Result r = measure(impl, n, threads);
                std::printf("%-18s n=%5d  threads=%d  %8.0f ns/call  (%.2f GFLOP/s)\n", r.impl.c_str(), n, threads,
                            r.seconds * 1e9, 2.0 * n * n * n / r.seconds * 1e-9);
                small.push_back(r);
            }
    }
    set_num_threads(saved_threads);

    const std::string path = out_dir + "/" + file;
    write_file_atomic(path, to_json(large, small, blas_core));
    std::printf("wrote %s\n", path.c_str());
    return 0;
}
