// test_gemm.cpp — the fast gemm kernels against the reference triple loop.
//
// Tolerance, and why: the kernels sum each dot product in a different order
// (blocked over K, fused multiply-adds) from gemm_reference, so results differ
// by rounding, not by bugs. For a sum of K products each computed result is
// within gamma_K * S of the exact value, where gamma_K ~= K*eps and
// S = sum_k |A(i,k)|*|B(k,j)| (plus |C| when accumulating) — the standard
// forward error bound for dot products. Two such results differ by at most
// twice that, so we allow 2*(K+2)*eps*S per element: tight enough that an
// index or stride bug (an error of order S itself) cannot hide inside it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <vector>

#include "tensor/error.hpp"
#include "tensor/gemm.hpp"
#include "tensor/parallel.hpp"
#include "tests/support/thread_count.hpp"

using namespace attnlab;
using attnlab::testing::ThreadCount;

namespace {

// A strided view over its own storage: element (r, c) is data[r*rs + c*cs].
template <typename T>
struct Strided {
    int64_t rows, cols, rs, cs;
    std::vector<T> data;
    T at(int64_t r, int64_t c) const { return data[static_cast<size_t>(r * rs + c * cs)]; }
};

enum class Layout { RowMajor, ColMajor, Padded, Scattered };

// Random values in [-1, 1] stored in the given layout. Padded leaves a gap
// after each row; Scattered has no unit stride at all, so only generic packing can read it.
template <typename T>
Strided<T> random_matrix(int64_t rows, int64_t cols, Layout layout, std::mt19937& rng) {
    Strided<T> m{rows, cols, 0, 0, {}};
    switch (layout) {
        case Layout::RowMajor: m.rs = cols, m.cs = 1; break;
        case Layout::ColMajor: m.rs = 1, m.cs = rows; break;
        case Layout::Padded: m.rs = cols + 3, m.cs = 1; break;
        case Layout::Scattered: m.rs = 2, m.cs = 2 * rows + 1; break;
    }
    const int64_t extent = rows == 0 || cols == 0 ? 1 : (rows - 1) * m.rs + (cols - 1) * m.cs + 1;
    std::uniform_real_distribution<T> dist(-1, 1);
    m.data.resize(static_cast<size_t>(extent));
    for (T& x : m.data) x = dist(rng);
    return m;
}

const char* name(Layout l) {
    switch (l) {
        case Layout::RowMajor: return "row-major";
        case Layout::ColMajor: return "col-major (transposed)";
        case Layout::Padded: return "row-major, padded";
        case Layout::Scattered: return "scattered strides";
    }
    return "?";
}

template <typename T>
using GemmFn = void (*)(int64_t, int64_t, int64_t, const T*, int64_t, int64_t, const T*, int64_t, int64_t, T*,
                        int64_t, bool);

// Runs `fast` and gemm_reference on the same inputs and checks every element of C
// against the bound above, and that the padding between C's rows is untouched.
template <typename T>
void check_against_reference(GemmFn<T> fast, int64_t M, int64_t N, int64_t K, Layout la, Layout lb, bool accumulate,
                             uint32_t seed = 1) {
    std::mt19937 rng(seed);
    Strided<T> A = random_matrix<T>(M, K, la, rng), B = random_matrix<T>(K, N, lb, rng);
    const int64_t ldc = N + 2;  // a gap after each row that nobody may write
    std::vector<T> c0(static_cast<size_t>(std::max<int64_t>(M * ldc, 1)));
    std::uniform_real_distribution<T> dist(-1, 1);
    for (T& x : c0) x = dist(rng);
    std::vector<T> got = c0, want = c0;

    fast(M, N, K, A.data.data(), A.rs, A.cs, B.data.data(), B.rs, B.cs, got.data(), ldc, accumulate);
    gemm_reference(M, N, K, A.data.data(), A.rs, A.cs, B.data.data(), B.rs, B.cs, want.data(), ldc, accumulate);

    INFO("M=" << M << " N=" << N << " K=" << K << "  A " << name(la) << ", B " << name(lb)
              << ", accumulate=" << accumulate);
    const T eps = std::numeric_limits<T>::epsilon();
    int64_t bad = 0, first_i = -1, first_j = -1;
    T first_got = 0, first_want = 0, first_tol = 0;
    for (int64_t i = 0; i < M; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
            const size_t at = static_cast<size_t>(i * ldc + j);
            T tol = 0;  // padding (j >= N) must be bit-for-bit untouched
            if (j < N) {
                T s = accumulate ? std::abs(c0[at]) : T(0);
                for (int64_t k = 0; k < K; ++k) s += std::abs(A.at(i, k)) * std::abs(B.at(k, j));
                tol = 2 * T(K + 2) * eps * s;
            }
            if (!(std::abs(got[at] - want[at]) <= tol) && bad++ == 0)
                first_i = i, first_j = j, first_got = got[at], first_want = want[at], first_tol = tol;
        }
    }
    INFO("first mismatch: C(" << first_i << ", " << first_j << ") = " << std::setprecision(9) << first_got
                              << ", reference " << first_want << ", allowed difference " << first_tol);
    CHECK(bad == 0);
}

const Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor};

}  // namespace

TEMPLATE_TEST_CASE("gemm_builtin matches the reference on many shapes, all transposes", "[tensor][gemm]", float,
                   double) {
    struct Shape {
        int64_t M, N, K;
    };
    // Edge tiles around the usual register tiles (MR up to 16, NR a multiple of 8),
    // primes, K slices beyond one cache block (K > 256), tall and wide panels.
    const Shape shapes[] = {{1, 1, 1},    {7, 13, 5},    {6, 6, 16},   {2, 3, 1},     {11, 31, 9},   {12, 32, 8},
                            {13, 33, 17}, {16, 64, 64},  {17, 65, 3},  {64, 64, 64},  {1, 100, 40},  {100, 1, 40},
                            {25, 47, 600}, {257, 129, 300}, {200, 17, 9}, {3, 4100, 3}, {0, 5, 3},    {5, 0, 3},
                            {4, 5, 0},    {0, 0, 0}};
    for (const Shape& s : shapes)
        for (Layout la : kLayouts)
            for (Layout lb : kLayouts)
                for (bool acc : {false, true})
                    check_against_reference<TestType>(gemm_builtin<TestType>, s.M, s.N, s.K, la, lb, acc);
}

TEMPLATE_TEST_CASE("gemm_builtin handles every small edge-tile shape", "[tensor][gemm]", float, double) {
    for (int64_t M = 1; M <= 26; ++M)
        for (int64_t N = 1; N <= 70; N += 3)
            for (int64_t K : {1, 4, 19})
                check_against_reference<TestType>(gemm_builtin<TestType>, M, N, K, Layout::RowMajor,
                                                  Layout::RowMajor, (M + N) % 2 == 0);
}

TEMPLATE_TEST_CASE("gemm_builtin reads padded and scattered strides", "[tensor][gemm]", float, double) {
    const Layout all[] = {Layout::RowMajor, Layout::ColMajor, Layout::Padded, Layout::Scattered};
    for (Layout la : all)
        for (Layout lb : all) check_against_reference<TestType>(gemm_builtin<TestType>, 37, 45, 29, la, lb, true);
}

TEMPLATE_TEST_CASE("gemm (the library's entry point, OpenBLAS in that build) matches the reference",
                   "[tensor][gemm]", float, double) {
    const Layout all[] = {Layout::RowMajor, Layout::ColMajor, Layout::Padded, Layout::Scattered};
    for (Layout la : all)
        for (Layout lb : all)
            for (bool acc : {false, true}) {
                check_against_reference<TestType>(gemm<TestType>, 1, 1, 1, la, lb, acc);
                check_against_reference<TestType>(gemm<TestType>, 7, 13, 5, la, lb, acc);
                check_against_reference<TestType>(gemm<TestType>, 70, 50, 300, la, lb, acc);
            }
    check_against_reference<TestType>(gemm<TestType>, 1, 40, 30, Layout::RowMajor, Layout::RowMajor, false);
    check_against_reference<TestType>(gemm<TestType>, 40, 1, 30, Layout::ColMajor, Layout::ColMajor, false);
    check_against_reference<TestType>(gemm<TestType>, 4, 5, 0, Layout::RowMajor, Layout::RowMajor, false);
    check_against_reference<TestType>(gemm<TestType>, 4, 5, 0, Layout::RowMajor, Layout::RowMajor, true);
}

TEMPLATE_TEST_CASE("gemm without accumulate ignores what C held, even NaN", "[tensor][gemm]", float, double) {
    const TestType nan = std::numeric_limits<TestType>::quiet_NaN();
    std::vector<TestType> A{1, 2, 3, 4}, B{5, 6, 7, 8}, C(4, nan);
    gemm<TestType>(2, 2, 2, A.data(), 2, 1, B.data(), 2, 1, C.data(), 2, false);
    CHECK(C == std::vector<TestType>{19, 22, 43, 50});  // small integers: exact in any summation order
    std::vector<TestType> Z(4, nan);
    gemm<TestType>(2, 2, 0, nullptr, 0, 1, nullptr, 2, 1, Z.data(), 2, false);  // K = 0: an empty sum
    CHECK(Z == std::vector<TestType>(4, 0));
}

TEMPLATE_TEST_CASE("gemm_builtin gives bit-identical results on 1, 2 and 3 threads", "[tensor][gemm]", float, double) {
    // Every shape is far above the parallel threshold (tens of MFLOP), has edge tiles in
    // M or N, and K spans two cache slices. The first and third split over rows, in steps
    // of 4 that cut through register tiles (301 rows on 2 threads: 152 + 149; on 3: 100 +
    // 100 + 101; 128 on 2: 64 + 64), the third with a column-major A read in place, as a
    // weight gradient's gᵀ; the second (more column tiles) splits over columns.
    struct Shape {
        int64_t M, N, K;
        Layout a;
    };
    for (Shape s : {Shape{301, 283, 310, Layout::RowMajor}, Shape{45, 1100, 290, Layout::RowMajor},
                    Shape{128, 128, 768, Layout::ColMajor}}) {
        std::mt19937 rng(7);
        Strided<TestType> A = random_matrix<TestType>(s.M, s.K, s.a, rng);
        Strided<TestType> B = random_matrix<TestType>(s.K, s.N, Layout::ColMajor, rng);
        std::vector<TestType> c1(static_cast<size_t>(s.M * s.N));
        auto run = [&](int threads, std::vector<TestType>& C) {
            ThreadCount tc(threads);
            gemm_builtin(s.M, s.N, s.K, A.data.data(), A.rs, A.cs, B.data.data(), B.rs, B.cs, C.data(), s.N, false);
        };
        run(1, c1);
        for (const int threads : {2, 3}) {
            std::vector<TestType> c2(c1.size());
            run(threads, c2);
            size_t first = 0;
            while (first < c1.size() && std::memcmp(&c1[first], &c2[first], sizeof(TestType)) == 0) ++first;
            INFO("M=" << s.M << " N=" << s.N << " K=" << s.K << " threads=" << threads);
            CAPTURE(first, first < c1.size() ? c1[first] : 0, first < c2.size() ? c2[first] : 0);
            CHECK(first == c1.size());
        }
    }
}

TEMPLATE_TEST_CASE("gemm_builtin reads a row-major or column-major A in place with the packed path's bits",
                   "[tensor][gemm]", float, double) {
    // A float A with few column tiles is read where it lies, row-major if its rows are short,
    // column-major (gᵀ in a weight gradient) whatever its columns (double always packs); the
    // same values at scattered strides, neither, are packed first (gemm_kernel.cpp,
    // a_in_place). All three must give C bit for bit: edge tiles in M and N, K over two
    // cache slices (300), N at and above the in-place limit of 16 tiles (of 32 floats with
    // AVX-512, 16 with AVX2), rows at and above 2048 bytes (K 512, 513), accumulating or not.
    struct Shape {
        int64_t M, N, K;
    };
    for (Shape s : {Shape{1, 1, 1}, Shape{5, 17, 3}, Shape{12, 32, 64}, Shape{13, 33, 65}, Shape{40, 64, 64},
                    Shape{37, 200, 300}, Shape{30, 256, 10}, Shape{30, 257, 10}, Shape{30, 512, 10}, Shape{30, 513, 10},
                    Shape{25, 64, 512}, Shape{25, 64, 513}, Shape{128, 128, 768}})
        for (const bool accumulate : {false, true}) {
            std::mt19937 rng(11);
            Strided<TestType> A = random_matrix<TestType>(s.M, s.K, Layout::RowMajor, rng);
            // The same values column-major, and at scattered strides (rows 2K + 1 apart, columns 2).
            Strided<TestType> At{s.M, s.K, 1, s.M, std::vector<TestType>(A.data.size())};
            Strided<TestType> As{s.M, s.K, 2 * s.K + 1, 2, std::vector<TestType>(static_cast<size_t>(s.M * (2 * s.K + 1)))};
            for (int64_t i = 0; i < s.M; ++i)
                for (int64_t k = 0; k < s.K; ++k) {
                    At.data[static_cast<size_t>(i + k * s.M)] = A.at(i, k);
                    As.data[static_cast<size_t>(i * As.rs + k * As.cs)] = A.at(i, k);
                }
            Strided<TestType> B = random_matrix<TestType>(s.K, s.N, Layout::RowMajor, rng);
            std::vector<TestType> c0(static_cast<size_t>(s.M * s.N));
            std::uniform_real_distribution<TestType> dist(-1, 1);
            for (TestType& x : c0) x = dist(rng);
            ThreadCount tc(1);
            std::vector<TestType> packed = c0;
            gemm_builtin(s.M, s.N, s.K, As.data.data(), As.rs, As.cs, B.data.data(), B.rs, B.cs, packed.data(), s.N,
                         accumulate);
            for (const Strided<TestType>* a : {&A, &At}) {
                std::vector<TestType> c = c0;
                gemm_builtin(s.M, s.N, s.K, a->data.data(), a->rs, a->cs, B.data.data(), B.rs, B.cs, c.data(), s.N, accumulate);
                size_t first = 0;
                while (first < c.size() && std::memcmp(&c[first], &packed[first], sizeof(TestType)) == 0) ++first;
                INFO("M=" << s.M << " N=" << s.N << " K=" << s.K << " accumulate=" << accumulate
                          << (a == &A ? " row-major" : " column-major"));
                CAPTURE(first);
                CHECK(first == c.size());
            }
        }
}

TEMPLATE_TEST_CASE("gemm's column bias gives the bits of the product followed by + bias", "[tensor][gemm]", float, double) {
    // The bias joins each sum once it is complete (after the last K slice), so C = A·B + b
    // must equal gemm into C, then C[i, j] + b[j], bit for bit: the direct loop (1 x 4 x 4),
    // full and partial tiles (N 16, 40), K over two slices (300), B packed ahead or not,
    // accumulating or not, 1 and 2 threads (45 x 1100 x 290 splits over columns: each
    // strip must take its own part of the bias).
    struct Shape {
        int64_t M, N, K;
    };
    for (Shape s : {Shape{1, 4, 4}, Shape{12, 16, 64}, Shape{13, 40, 64}, Shape{37, 200, 300}, Shape{45, 1100, 290}})
        for (const bool accumulate : {false, true})
            for (const bool packed : {false, true})
                for (const int threads : {1, 2}) {
                    std::mt19937 rng(5);
                    Strided<TestType> A = random_matrix<TestType>(s.M, s.K, Layout::RowMajor, rng);
                    Strided<TestType> B = random_matrix<TestType>(s.K, s.N, Layout::ColMajor, rng);
                    std::vector<TestType> bias(static_cast<size_t>(s.N)), fused(static_cast<size_t>(s.M * s.N));
                    std::uniform_real_distribution<TestType> dist(-1, 1);
                    for (TestType& x : bias) x = dist(rng);
                    for (TestType& x : fused) x = dist(rng);
                    std::vector<TestType> separate = fused;
                    const PackedB<TestType> pb = gemm_pack_b<TestType>(s.K, s.N, B.data.data(), B.rs, B.cs);
                    ThreadCount tc(threads);
                    gemm<TestType>(s.M, s.N, s.K, A.data.data(), A.rs, A.cs, B.data.data(), B.rs, B.cs, packed ? &pb : nullptr,
                                   fused.data(), s.N, accumulate, bias.data());
                    gemm<TestType>(s.M, s.N, s.K, A.data.data(), A.rs, A.cs, B.data.data(), B.rs, B.cs, packed ? &pb : nullptr,
                                   separate.data(), s.N, accumulate);
                    for (int64_t i = 0; i < s.M; ++i)
                        for (int64_t j = 0; j < s.N; ++j) separate[static_cast<size_t>(i * s.N + j)] += bias[static_cast<size_t>(j)];
                    size_t first = 0;
                    while (first < fused.size() && std::memcmp(&fused[first], &separate[first], sizeof(TestType)) == 0) ++first;
                    INFO("M=" << s.M << " N=" << s.N << " K=" << s.K << " accumulate=" << accumulate << " packed=" << packed
                              << " threads=" << threads);
                    CAPTURE(first);
                    CHECK(first == fused.size());
                }
    // K = 0: an empty sum, then the bias.
    std::vector<TestType> C(4, std::numeric_limits<TestType>::quiet_NaN()), b{1, 2};
    gemm<TestType>(2, 2, 0, nullptr, 0, 1, nullptr, 2, 1, nullptr, C.data(), 2, false, b.data());
    CHECK(C == std::vector<TestType>{1, 2, 1, 2});
}

TEST_CASE("gemm rejects bad arguments with a ValueError naming gemm and the values", "[tensor][gemm]") {
    std::vector<float> A(6, 1), B(6, 1), C(4, 0);
    using Catch::Matchers::Contains;
    CHECK_THROWS_WITH(gemm<float>(-1, 2, 3, A.data(), 3, 1, B.data(), 2, 1, C.data(), 2, false),
                      Contains("gemm") && Contains("M=-1"));
    CHECK_THROWS_AS(gemm<float>(2, -2, 3, A.data(), 3, 1, B.data(), 2, 1, C.data(), 2, false), ValueError);
    CHECK_THROWS_AS(gemm_builtin<double>(2, 2, -3, nullptr, 3, 1, nullptr, 2, 1, nullptr, 2, false), ValueError);
    CHECK_THROWS_WITH(gemm<float>(2, 2, 3, nullptr, 3, 1, B.data(), 2, 1, C.data(), 2, false),
                      Contains("gemm") && Contains("A is null") && Contains("K=3"));
    CHECK_THROWS_WITH(gemm<float>(2, 2, 3, A.data(), 3, 1, nullptr, 2, 1, C.data(), 2, false), Contains("B is null"));
    CHECK_THROWS_WITH(gemm<float>(2, 2, 3, A.data(), 3, 1, B.data(), 2, 1, nullptr, 2, false), Contains("C is null"));
    CHECK_THROWS_WITH(gemm<float>(2, 2, 3, A.data(), 3, 1, B.data(), 2, 1, C.data(), 1, false), Contains("ldc=1"));
    CHECK_THROWS_AS(gemm_reference<float>(-1, 2, 3, A.data(), 3, 1, B.data(), 2, 1, C.data(), 2, false), ValueError);
    // Null is fine where nothing is read or written.
    CHECK_NOTHROW(gemm<float>(0, 0, 5, nullptr, 5, 1, nullptr, 0, 1, nullptr, 0, false));
    CHECK(C == std::vector<float>(4, 0));
}
