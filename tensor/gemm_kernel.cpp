// gemm_kernel.cpp — attnlab's own matrix multiply: packed, cache-blocked, register-tiled.
//
// The naive i-j-k loop reloads A and B from memory for every multiply-add and
// reaches a few GFLOP/s. This kernel follows the Goto/BLIS scheme instead:
//
//   for jc over N in NC-wide panels
//     for pc over K in KC-deep slices
//       pass 1  pack B panel   B[pc:pc+kc, jc:jc+nc]  -> NR-wide slivers   (stays in L2/L3)
//       for ic over M in MC-tall blocks
//         pass 2  pack A block  A[ic:ic+mc, pc:pc+kc] -> MR-tall slivers   (stays in L2)
//         for jr over the panel in NR steps             (one B sliver, kc x NR, stays in L1)
//           for ir over the block in MR steps
//             pass 3  micro-kernel: C tile [MR x NR] += A sliver . B sliver, in registers
//                     (+ a column bias after the last K slice, if the caller gave one)
//             pass 4  edge tiles: fewer rows or whole vectors go to a smaller kernel
//                     instance; a width ending mid-vector goes through a scratch tile
//
// Problems of at most kDirectMaxWork multiply-adds skip all this for a plain
// loop: at that size packing costs more than it saves.
//
// Packing copies each operand once per block into the exact order the
// micro-kernel reads it, so the kernel sees unit-stride, aligned data whatever
// the caller's strides were (transposes cost nothing extra). A float A that
// serves few column tiles is read where it lies instead, row-major or
// column-major (see blocked_serial). The kernel itself
// never checks bounds: a short last row sliver has its own kernel instance
// (templated on the row count) and a narrow last column sliver is zero-padded.
//
// Threads split the output over rows (in steps of 4) or columns (at sliver
// boundaries), never over K, and every thread uses the same KC slicing: each C
// element is the same chain of fused multiply-adds, in the same order, for any
// thread count.
//
// Left out: assembly, prefetch hints, intrinsics. The micro-kernel is written
// with GCC vector extensions, which compile to AVX-512, AVX2, SSE or NEON
// instructions as the target allows. To tune for another machine, edit
// TileShape (register tile) and Blocking (cache blocks) below, then run
// `make bench`; the tests in tests/tensor/test_gemm.cpp cover every edge case.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "tensor/gemm.hpp"
#include "tensor/parallel.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab::detail {
namespace {

// ---- configuration --------------------------------------------------------------

#if defined(__AVX512F__)
constexpr int kVectorBytes = 64;  // 32 zmm registers
constexpr int kTileRows = 12;     // 12 x 2 accumulators + 2 B vectors + 1 broadcast A = 27 registers
#elif defined(__AVX__)
constexpr int kVectorBytes = 32;  // 16 ymm registers
constexpr int kTileRows = 6;      // 6 x 2 accumulators + 3 = 15 registers
#else
constexpr int kVectorBytes = 16;  // SSE2 (16 registers) or NEON (32; more rows would pay)
constexpr int kTileRows = 6;
#endif

template <typename T>
struct VecOf;
template <>
struct VecOf<float> {
    typedef float type __attribute__((vector_size(kVectorBytes)));
};
template <>
struct VecOf<double> {
    typedef double type __attribute__((vector_size(kVectorBytes)));
};
template <typename T>
using Vec = typename VecOf<T>::type;

static_assert(sizeof(Vec<float>) == sizeof(vec::VF), "pack_b_columns_by_blocks packs by vec::transpose_block's blocks");

// The register tile: MR rows of C, each NV vectors (NR elements) wide.
template <typename T>
struct TileShape {
    static constexpr int kLanes = kVectorBytes / static_cast<int>(sizeof(T));
    static constexpr int MR = kTileRows;
    static constexpr int NV = 2;
    static constexpr int NR = NV * kLanes;
};

// Cache blocks, in elements. KC: a B sliver (KC x NR) fits in L1 with room for
// A; MC: an A block (MC x KC) fits in L2; NC: a B panel (KC x NC) fits in L2/L3.
template <typename T>
struct Blocking {
    static constexpr int64_t KC = 256;
    static constexpr int64_t MC = 16 * TileShape<T>::MR;
    static constexpr int64_t NC = 128 * TileShape<T>::NR;
};

// A thread's share of the work must be at least kMinFlopsPerChunk (parallel.hpp says
// why): below it, handing a share to another thread costs more than it saves
// (bench_matmul, 2 threads against 1, shows where the split starts to pay).
constexpr double kMinFlopsPerThread = kMinFlopsPerChunk;

// The step in rows at which threads split a product's rows (gemm_blocked).
constexpr int64_t kSplitRows = 4;

constexpr int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// ---- vector loads and stores; packing buffers -----------------------------------

template <typename T>
Vec<T> load(const T* p) {
    Vec<T> v;
    std::memcpy(&v, p, sizeof v);  // compiles to one (unaligned) vector load
    return v;
}
template <typename T>
void store(T* p, Vec<T> v) {
    std::memcpy(p, &v, sizeof v);
}

// A growable 64-byte-aligned array. Each thread keeps one per operand and type,
// so after the first call of a given size gemm allocates nothing.
template <typename T>
class AlignedBuffer {
public:
    T* reserve(int64_t n) {
        if (n > capacity_) {
            data_.reset(static_cast<T*>(::operator new(static_cast<size_t>(n) * sizeof(T), kAlign)));
            capacity_ = n;
        }
        return data_.get();
    }

private:
    static constexpr std::align_val_t kAlign{64};
    struct Free {
        void operator()(T* p) const { ::operator delete(p, kAlign); }
    };
    std::unique_ptr<T, Free> data_;
    int64_t capacity_ = 0;
};

template <typename T>
struct PackBuffers {
    AlignedBuffer<T> a, b;
};

template <typename T>
PackBuffers<T>& pack_buffers() {
    thread_local PackBuffers<T> buffers;
    return buffers;
}

// ---- pass 1: pack B panel -------------------------------------------------------

// The column-major B of pack_b (below), W columns by W rows of k at a time:
// W vector loads along memory, a register transpose, W vector stores into the
// sliver, instead of W*W scattered single stores. Covers the first
// cols / W * W columns for k < the returned bound; the caller packs the rest.
inline int64_t pack_b_columns_by_blocks(int64_t kc, int64_t cols, const float* B, int64_t cs, float* Bp) {
    constexpr int W = TileShape<float>::kLanes, NR = TileShape<float>::NR;
    const int64_t k_end = kc / W * W;
    for (int64_t j = 0; j + W <= cols; j += W)
        for (int64_t k = 0; k < k_end; k += W) vec::transpose_block(B + j * cs + k, cs, Bp + k * NR + j, NR);
    return k_end;
}

// B panel [kc x nc] -> ceil(nc/NR) slivers, each [kc x NR] row-major:
//   Bp[s*kc*NR + k*NR + j] = B(k, s*NR + j).
// The micro-kernel reads whole vectors, so the last sliver is zero-padded up to
// the next vector boundary; anything beyond that is never read. kUnitCols
// compiles a copy of the loop for the common row-major B, copying whole vectors.
template <typename T, bool kUnitCols>
void pack_b(int64_t kc, int64_t nc, const T* B, int64_t rs, int64_t cs_arg, T* Bp) {
    constexpr int NR = TileShape<T>::NR, W = TileShape<T>::kLanes;
    const int64_t cs = kUnitCols ? 1 : cs_arg;
    for (int64_t j0 = 0; j0 < nc; j0 += NR) {
        const int64_t cols = std::min<int64_t>(NR, nc - j0), padded = round_up(cols, W);
        if (!kUnitCols && rs == 1) {
            // B is column-major (Wᵀ in every Linear's forward): read each column along
            // memory and scatter it down the sliver, instead of gathering every row
            // across columns `cs` elements apart. The packed result is the same.
            for (int64_t j = cols; j < padded; ++j)
                for (int64_t k = 0; k < kc; ++k) Bp[k * NR + j] = T(0);
            int64_t k_done = 0;
            if constexpr (std::is_same_v<T, float>) k_done = pack_b_columns_by_blocks(kc, cols, B + j0 * cs, cs, Bp);
            for (int64_t j = 0; j < cols; ++j) {
                const T* src = B + (j0 + j) * cs;
                const int64_t k_from = j < cols / W * W ? k_done : 0;  // the blocks covered whole vectors of columns
                for (int64_t k = k_from; k < kc; ++k) Bp[k * NR + j] = src[k];
            }
            Bp += kc * NR;
            continue;
        }
        for (int64_t k = 0; k < kc; ++k) {
            const T* src = B + k * rs + j0 * cs;
            T* dst = Bp + k * NR;
            int64_t j = 0;
            if constexpr (kUnitCols)
                for (; j + W <= cols; j += W) store(dst + j, load(src + j));
            for (; j < padded; j += W) {  // a strided or partial vector: zeros, then the columns there are
                store(dst + j, Vec<T>{});
                const int64_t lanes = std::min<int64_t>(W, cols - j);
                for (int64_t l = 0; l < lanes; ++l) dst[j + l] = src[(j + l) * cs];
            }
        }
        Bp += kc * NR;
    }
}

// ---- pass 2: pack A block -------------------------------------------------------

// A block [mc x kc] -> ceil(mc/MR) slivers, each [kc x MR] (column-major tile):
//   Ap[s*kc*MR + k*MR + r] = A(s*MR + r, k).
// A last sliver with fewer rows keeps the MR stride but its missing rows are
// never written or read: it goes to the micro-kernel built for that many rows.
// The loop order follows A's layout so that reads run along memory: a row-major A
// is read row by row, a column-major one (a transposed view, as in the weight
// gradient gᵀx) column by column. The packed result is the same either way.
template <typename T>
void pack_a(int64_t mc, int64_t kc, const T* A, int64_t rs, int64_t cs, T* Ap) {
    constexpr int MR = TileShape<T>::MR;
    for (int64_t i0 = 0; i0 < mc; i0 += MR) {
        const int64_t rows = std::min<int64_t>(MR, mc - i0);
        if (rs == 1) {
            for (int64_t k = 0; k < kc; ++k) {
                const T* src = A + i0 + k * cs;
                for (int64_t r = 0; r < rows; ++r) Ap[k * MR + r] = src[r];
            }
        } else if (rows == MR && cs == 1) {
            // A row-major A (x in every Linear): MR rows read side by side, one element
            // of each per k, so the inner loop has a fixed length the compiler unrolls
            // (row by row, each k was a loop trip of its own: a quarter of W6's time).
            const T* src = A + i0 * rs;
            for (int64_t k = 0; k < kc; ++k) {
#pragma GCC unroll 32
                for (int r = 0; r < MR; ++r) Ap[k * MR + r] = src[r * rs + k];
            }
        } else {
            for (int64_t r = 0; r < rows; ++r) {
                const T* src = A + (i0 + r) * rs;
                for (int64_t k = 0; k < kc; ++k) Ap[k * MR + r] = src[k * cs];
            }
        }
        Ap += kc * MR;
    }
}

// ---- pass 3: micro-kernel -------------------------------------------------------

// C[0:Rows, 0:Vecs*W] = (overwrite ? 0 : C) + A[Rows x kc] . Bp[kc x NR], reading
// the first Vecs vectors of each B row; then + bias[0:Vecs*W] on every row when bias is
// not null (the last K slice of a product with a column bias: see gemm.hpp).
// A's element (r, k) is at Ap[r + k*lda] (kColumnsA: a packed sliver from pack_a, lda =
// MR, or a column-major A read in place, lda its column stride) or at Ap[r*lda + k]
// (a row-major A read in place); reading A in place saves packing it when it serves few
// column tiles (see blocked_serial). Either way element (r, k) is the same number,
// multiplied and added in the same order, so all three give the same bits.
// The accumulators are a fixed-size array of vectors; with the loops fully
// unrolled the compiler keeps all Rows*Vecs of them in registers, and
// `acc += a * b` becomes one fused multiply-add per vector (vfmadd231ps on x86).
// Rows = MR, Vecs = NV is the full tile; the smaller instances serve edge tiles
// with exactly the same arithmetic per element.
template <typename T, int Rows, int Vecs, bool kColumnsA>
void micro_kernel(int64_t kc, const T* __restrict Ap, int64_t lda, const T* __restrict Bp, T* __restrict C,
                  int64_t ldc, bool overwrite, const T* __restrict bias) {
    constexpr int NR = TileShape<T>::NR, W = TileShape<T>::kLanes;
    Vec<T> acc[Rows][Vecs] = {};
    for (int64_t k = 0; k < kc; ++k) {
        Vec<T> b[Vecs];
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) b[v] = load(Bp + v * W);
#pragma GCC unroll 32
        for (int r = 0; r < Rows; ++r) {
            const T a = kColumnsA ? Ap[r] : Ap[r * lda + k];  // broadcast to every lane by the vector arithmetic
#pragma GCC unroll 8
            for (int v = 0; v < Vecs; ++v) acc[r][v] += a * b[v];
        }
        if constexpr (kColumnsA) Ap += lda;
        Bp += NR;
    }
#pragma GCC unroll 32
    for (int r = 0; r < Rows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < Vecs; ++v) {
            T* c = C + r * ldc + v * W;
            Vec<T> sum = overwrite ? acc[r][v] : load(c) + acc[r][v];
            if (bias) sum += load(bias + v * W);  // after the whole sum, as y + b after the product
            store(c, sum);
        }
    }
}

template <typename T>
using MicroKernel = void (*)(int64_t, const T*, int64_t, const T*, T*, int64_t, bool, const T*);

// kKernels<T, kColumnsA>[r-1][v-1] computes r rows by v vectors.
template <typename T, bool kColumnsA, int Rows, size_t... V>
constexpr std::array<MicroKernel<T>, sizeof...(V)> kernel_row(std::index_sequence<V...>) {
    return {&micro_kernel<T, Rows, static_cast<int>(V) + 1, kColumnsA>...};
}
template <typename T, bool kColumnsA, size_t... R>
constexpr auto make_kernels(std::index_sequence<R...>) {
    using Row = std::array<MicroKernel<T>, TileShape<T>::NV>;
    return std::array<Row, sizeof...(R)>{
        kernel_row<T, kColumnsA, static_cast<int>(R) + 1>(std::make_index_sequence<TileShape<T>::NV>{})...};
}
template <typename T, bool kColumnsA>
constexpr auto kKernels = make_kernels<T, kColumnsA>(std::make_index_sequence<TileShape<T>::MR>{});

// Reading A in place pays for float, the models' dtype; float64 (gradcheck, references)
// always packs, which also spares compiling a second table of double kernels.
template <typename T>
constexpr bool kReadsAInPlace = std::is_same_v<T, float>;

// ---- pass 4: edge handling ------------------------------------------------------

// A tile whose width ends mid-vector (see tile): computed into a scratch tile, the padded B
// columns being zeros, and its valid part added to C exactly as the micro-kernel would have.
// Out of line, so that the calls of tile() for full tiles, nearly all of them, do not set up
// its 1.5 KB aligned stack frame.
template <typename T>
[[gnu::noinline]] void tile_mid_vector(MicroKernel<T> kernel, int64_t kc, int64_t rows, int64_t cols, const T* Ap,
                                       int64_t lda, const T* Bp, T* C, int64_t ldc, bool overwrite, const T* bias) {
    constexpr int MR = TileShape<T>::MR, NR = TileShape<T>::NR;
    alignas(64) T scratch[MR * NR];
    kernel(kc, Ap, lda, Bp, scratch, NR, true, nullptr);
    for (int64_t r = 0; r < rows; ++r) {
        const T* from = scratch + r * NR;
        T* to = C + r * ldc;
        for (int64_t j = 0; j < cols; ++j) {
            const T sum = overwrite ? from[j] : to[j] + from[j];
            to[j] = bias ? sum + bias[j] : sum;
        }
    }
}

// One tile of C, rows <= MR by cols <= NR. Full tiles, and edge tiles whose width is whole
// vectors, go straight to the micro-kernel for that many rows and vectors; a width that ends
// mid-vector goes through tile_mid_vector. bias: null, or the tile's columns of the column
// bias. A's element (r, k) is at Ap[r*a_rs + k*a_cs], a_rs = 1 (a packed sliver: a_cs = MR;
// or a column-major A in place) or a_cs = 1 (a row-major A in place; float only: kReadsAInPlace).
template <typename T>
void tile(int64_t kc, int64_t rows, int64_t cols, const T* Ap, int64_t a_rs, int64_t a_cs, const T* Bp, T* C,
          int64_t ldc, bool overwrite, const T* bias) {
    constexpr int W = TileShape<T>::kLanes;
    const int64_t vecs = (cols + W - 1) / W;
    MicroKernel<T> kernel = kKernels<T, true>[rows - 1][vecs - 1];
    int64_t lda = a_cs;
    if constexpr (kReadsAInPlace<T>)
        if (a_rs != 1) kernel = kKernels<T, false>[rows - 1][vecs - 1], lda = a_rs;
    if (cols % W == 0) kernel(kc, Ap, lda, Bp, C, ldc, overwrite, bias);
    else tile_mid_vector(kernel, kc, rows, cols, Ap, lda, Bp, C, ldc, overwrite, bias);
}

// ---- tiny problems: the direct loop ---------------------------------------------

// Packing has a fixed cost of some tens of nanoseconds plus about a nanosecond
// per packed element; the plain loop has none. Measured on the reference
// machine (Xeon, AVX-512), the two break even near 4x4x4 = 64 multiply-adds
// (61 vs 57 ns); by 5x5x5 packing wins 81 to 143 ns, at 6x6x16 157 to 274 ns.
constexpr double kDirectMaxWork = 64;

template <typename T>
void direct(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B, int64_t b_rs,
            int64_t b_cs, T* C, int64_t ldc, bool accumulate, const T* bias) {
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            T sum = T(0);
            for (int64_t k = 0; k < K; ++k) sum += A[i * a_rs + k * a_cs] * B[k * b_rs + j * b_cs];
            if (accumulate) sum = C[i * ldc + j] + sum;
            C[i * ldc + j] = bias ? sum + bias[j] : sum;
        }
}

// ---- B packed ahead of time ------------------------------------------------------

// All of B's panels, in the order blocked_serial visits them (jc, then pc), each
// exactly as pass 1 packs it: panel (jc, pc) starts at jc*K + round_up(nc, NR)*pc
// (every panel before jc is NC wide, a multiple of NR).
template <typename T>
int64_t packed_panel_offset(int64_t K, int64_t nc, int64_t jc, int64_t pc) {
    return jc * K + round_up(nc, TileShape<T>::NR) * pc;
}

template <typename T>
void pack_b_slice(int64_t kc, int64_t nc, const T* B, int64_t b_rs, int64_t b_cs, T* Bp) {
    if (b_cs == 1)
        pack_b<T, true>(kc, nc, B, b_rs, b_cs, Bp);
    else
        pack_b<T, false>(kc, nc, B, b_rs, b_cs, Bp);
}

// ---- the blocked loop nest, one thread ------------------------------------------

// How many column tiles A may serve unpacked (see a_in_place in blocked_serial)...
constexpr int64_t kMaxColumnTilesInPlaceA = 16;
// ...with its rows at most this many bytes apart: every Linear of the toy models and of
// nanoGPT's CPU recipe (d_model 128, its MLP's 512). An MR-row sliver then falls into at
// most two of L1's 4 KB-periodic set groups, six rows to a set; rows a multiple of 4 KB
// apart would all fall into one set, more rows than it has ways.
constexpr int64_t kMaxRowBytesInPlaceA = 2048;

// packed_b: B's panels from pack_b_panels, or null to pack them here. bias: see gemm.hpp.
template <typename T>
void blocked_serial(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B,
                    int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate, const T* packed_b,
                    const T* bias) {
    constexpr int MR = TileShape<T>::MR, NR = TileShape<T>::NR;
    constexpr int64_t KC = Blocking<T>::KC, MC = Blocking<T>::MC, NC = Blocking<T>::NC;
    PackBuffers<T>& buffers = pack_buffers<T>();
    T* Bp = packed_b ? nullptr : buffers.b.reserve(round_up(std::min(N, NC), NR) * std::min(K, KC));
    T* Ap = buffers.a.reserve(round_up(std::min(M, MC), MR) * std::min(K, KC));
    // A row-major A (x in every Linear) is read where it lies instead of packed when
    // its slivers would serve few column tiles: packing reads and writes every element
    // once, about as much as the micro-kernel's own work on it for N of two tiles (W6's
    // and W4's [T, 64] @ [64, 64]), and the packed copy buys nothing the rows in L1 do not.
    // W7's products of 512 columns or a K of 512 (fc1 forward, fc2's dx; fc2 forward, fc1's
    // dx) run 2% and 10% faster in place than packed (bench_workloads --only gemm_w7, with
    // the limits below halved for the packed side). A column-major A (gᵀ, a weight
    // gradient's A) is read in place too, under the same limit on column tiles: a sliver's
    // MR rows are MR adjacent elements of each of A's columns, so the micro-kernel reads it
    // as it reads a packed sliver, its columns a_cs apart instead of MR. W7's weight
    // gradients run 2-9% faster so (bench_workloads --only gemm_w7_dw).
    const bool rows_in_place = kReadsAInPlace<T> && a_cs == 1 && a_rs > 0 &&
                               a_rs * int64_t(sizeof(T)) <= kMaxRowBytesInPlaceA && N <= kMaxColumnTilesInPlaceA * NR;
    const bool columns_in_place = kReadsAInPlace<T> && !rows_in_place && a_rs == 1 && a_cs > 0 &&
                                  N <= kMaxColumnTilesInPlaceA * NR;
    const bool a_in_place = rows_in_place || columns_in_place;

    for (int64_t jc = 0; jc < N; jc += NC) {
        const int64_t nc = std::min(NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += KC) {
            const int64_t kc = std::min(KC, K - pc);
            const bool overwrite = pc == 0 && !accumulate;  // the first K slice replaces C
            const T* bias_now = pc + kc == K ? bias : nullptr;  // the last one adds the bias
            const T* panel = packed_b ? packed_b + packed_panel_offset<T>(K, nc, jc, pc) : Bp;
            if (!packed_b) pack_b_slice(kc, nc, B + pc * b_rs + jc * b_cs, b_rs, b_cs, Bp);

            for (int64_t ic = 0; ic < M; ic += MC) {
                const int64_t mc = std::min(MC, M - ic);
                if (!a_in_place) pack_a(mc, kc, A + ic * a_rs + pc * a_cs, a_rs, a_cs, Ap);

                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int64_t nr = std::min<int64_t>(NR, nc - jr);
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int64_t mr = std::min<int64_t>(MR, mc - ir);
                        const T* a = a_in_place ? A + (ic + ir) * a_rs + pc * a_cs : Ap + ir * kc;
                        const T* b = panel + jr * kc;
                        tile(kc, mr, nr, a, a_in_place ? a_rs : 1, a_in_place ? a_cs : MR, b, C + (ic + ir) * ldc + jc + jr,
                             ldc, overwrite, bias_now ? bias_now + jc + jr : nullptr);
                    }
                }
            }
        }
    }
}

}  // namespace

template <typename T>
int64_t packed_b_elements(int64_t K, int64_t N) {
    return round_up(N, TileShape<T>::NR) * K;
}

template <typename T>
void pack_b_panels(int64_t K, int64_t N, const T* B, int64_t b_rs, int64_t b_cs, T* out) {
    constexpr int64_t KC = Blocking<T>::KC, NC = Blocking<T>::NC;
    for (int64_t jc = 0; jc < N; jc += NC) {
        const int64_t nc = std::min(NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += KC)
            pack_b_slice(std::min(KC, K - pc), nc, B + pc * b_rs + jc * b_cs, b_rs, b_cs,
                         out + packed_panel_offset<T>(K, nc, jc, pc));
    }
}

// ---- entry: direct loop, or blocked on one thread, or strips on several ---------

template <typename T>
void gemm_blocked(int64_t M, int64_t N, int64_t K, const T* A, int64_t a_rs, int64_t a_cs, const T* B,
                  int64_t b_rs, int64_t b_cs, T* C, int64_t ldc, bool accumulate, const T* packed_b,
                  const T* bias) {
    constexpr int MR = TileShape<T>::MR, NR = TileShape<T>::NR;
    if (double(M) * double(N) * double(K) <= kDirectMaxWork) {
        direct(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, bias);
        return;
    }
    if (num_threads() == 1 || 2.0 * M * N * K < 2 * kMinFlopsPerThread) {  // not enough for two
        blocked_serial(M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, packed_b, bias);
        return;
    }
    // Split whichever dimension has more tiles; each strip must carry kMinFlopsPerThread.
    // A packed B is split by rows only: its panels start at multiples of NC.
    // Rows go in steps of kSplitRows, not whole tiles: a weight gradient's 128 rows are 11
    // tiles of 12, which two threads would share as 72 rows and 56 (one idle for an eighth
    // of the product); in steps of 4 each gets 64, five tiles and a 4-row edge tile. A
    // row's sums are the same chains of FMAs in whichever tile it lands.
    const int64_t row_tiles = (M + MR - 1) / MR, col_tiles = (N + NR - 1) / NR;
    const bool by_rows = row_tiles >= col_tiles || packed_b;
    const int64_t units = by_rows ? (M + kSplitRows - 1) / kSplitRows : col_tiles;
    const double flops_per_unit = 2.0 * K * (by_rows ? kSplitRows * double(N) : NR * double(M));
    const int64_t grain = std::max<int64_t>(1, static_cast<int64_t>(kMinFlopsPerThread / flops_per_unit));
    // The problem in one struct, so the chunk body captures one reference.
    struct Problem {
        int64_t M, N, K;
        const T* A;
        int64_t a_rs, a_cs;
        const T* B;
        int64_t b_rs, b_cs;
        const T *packed_b, *bias;
        T* C;
        int64_t ldc;
        bool accumulate, by_rows;
    } const p{M, N, K, A, a_rs, a_cs, B, b_rs, b_cs, packed_b, bias, C, ldc, accumulate, by_rows};
    parallel_for(0, units, grain, [&p](int64_t lo, int64_t hi) {
        if (p.by_rows) {
            const int64_t i0 = lo * kSplitRows, i1 = std::min(p.M, hi * kSplitRows);
            blocked_serial(i1 - i0, p.N, p.K, p.A + i0 * p.a_rs, p.a_rs, p.a_cs, p.B, p.b_rs, p.b_cs,
                           p.C + i0 * p.ldc, p.ldc, p.accumulate, p.packed_b, p.bias);
        } else {
            const int64_t j0 = lo * NR, j1 = std::min(p.N, hi * NR);
            blocked_serial(p.M, j1 - j0, p.K, p.A, p.a_rs, p.a_cs, p.B + j0 * p.b_cs, p.b_rs, p.b_cs, p.C + j0,
                           p.ldc, p.accumulate, static_cast<const T*>(nullptr), p.bias ? p.bias + j0 : nullptr);
        }
    });
}

template void gemm_blocked<float>(int64_t, int64_t, int64_t, const float*, int64_t, int64_t, const float*, int64_t,
                                  int64_t, float*, int64_t, bool, const float*, const float*);
template void gemm_blocked<double>(int64_t, int64_t, int64_t, const double*, int64_t, int64_t, const double*,
                                   int64_t, int64_t, double*, int64_t, bool, const double*, const double*);
template int64_t packed_b_elements<float>(int64_t, int64_t);
template int64_t packed_b_elements<double>(int64_t, int64_t);
template void pack_b_panels<float>(int64_t, int64_t, const float*, int64_t, int64_t, float*);
template void pack_b_panels<double>(int64_t, int64_t, const double*, int64_t, int64_t, double*);

}  // namespace attnlab::detail
