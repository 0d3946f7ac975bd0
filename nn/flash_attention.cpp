// flash_attention.cpp — see flash_attention.hpp.
//
// Layout: q, k, v are seen as [N, T, d] with N the product of the batch dims; n
// indexes one (batch, head) pair. They are read through their strides (Rows below),
// as long as each row's d elements are contiguous, and the output is laid out like
// q: so MultiHeadAttention's heads, [B, T, H, d_k] seen as [B, H, T, d_k], go in and
// come out without a copy. Every product of blocks goes
// through detail::tile_product (nn/flash_attention_tile.hpp), which wants its right
// operand's rows contiguous: so a thread first copies kᵀ (and, for backward, vᵀ)
// of its head, [d, Tk], O(T) memory. Scratch buffers are tensors, so the
// allocator's counters see them (the bench reports peak bytes from those counters).
#include "nn/flash_attention.hpp"

#include "nn/attention.hpp"  // attention_scale

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "autograd/node.hpp"
#include "nn/flash_attention_mask.hpp"
#include "nn/flash_attention_tile.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tensor/softmax_row.hpp"
#include "tensor/vec_math.hpp"

namespace attnlab::nn {

namespace {

constexpr std::int64_t BQ = kFlashQueryBlock, BK = kFlashKeyBlock;

// ---- the mask, read in place ---------------------------------------------------------

using detail::both;
using detail::Cover;
using detail::rule_cover;

// The mask as the kernel reads it: the rules (causal, local, strided) as rules, never a
// Tq × Tk tensor, and the tensor part (padding, from_allowed, from_additive) in place:
// where "is key j allowed for query i of batch n" sits in its 0/1 tensor, broadcast over
// the batch dims exactly as Mask::apply broadcasts it over scores.
struct MaskLayout {
    std::vector<MaskRule> rules;
    Tensor allowed;  // the tensor part, contiguous float32; undefined: none
    Shape batch_sizes, batch_strides;  // per batch dim of q; stride 0 where the mask broadcasts
    std::int64_t row_stride = 0, col_stride = 0;

    const float* batch(std::int64_t n) const {
        if (!allowed.defined()) return nullptr;  // the rules alone (or nothing)
        std::int64_t off = 0;
        for (std::int64_t d = batch_sizes.size() - 1; d >= 0; --d) {
            off += (n % batch_sizes[d]) * batch_strides[d];
            n /= batch_sizes[d];
        }
        return allowed.const_data_ptr<float>() + off;
    }
    bool at(const float* m, std::int64_t i, std::int64_t j) const {
        for (const MaskRule& r : rules)
            if (!r.allows(i, j)) return false;
        return !m || m[i * row_stride + j * col_stride] != 0.0f;
    }

    // Rows i0.. (bq of them) × keys j0.. (bk of them): all blocked, partly, or all allowed.
    Cover cover(const float* m, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk) const {
        Cover c = Cover::all;
        for (const MaskRule& r : rules) c = both(c, rule_cover(r, i0, bq, j0, bk));  // nn/flash_attention_mask.hpp
        return c == Cover::none ? c : both(c, tensor_cover(m, i0, bq, j0, bk));
    }
    Cover tensor_cover(const float* m, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk) const {
        if (!m) return Cover::all;
        const std::int64_t rows = row_stride ? bq : 1, cols = col_stride ? bk : 1;  // broadcast: one is enough
        bool any = false, every = true;
        for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t j = 0; j < cols; ++j) {
                const bool a = m[(i0 + i) * row_stride + (j0 + j) * col_stride] != 0.0f;
                any |= a, every &= a;
                if (any && !every) return Cover::some;
            }
        return every ? Cover::all : any ? Cover::some : Cover::none;
    }
};

MaskLayout mask_layout(const Mask& mask, const Shape& batch, std::int64_t Tq, std::int64_t Tk) {
    MaskLayout L;
    L.batch_sizes = batch;
    for (std::int64_t d = 0; d < batch.size(); ++d) L.batch_strides.push_back(0);
    Shape scores = batch;
    scores.push_back(Tq), scores.push_back(Tk);
    for (const MaskRule& r : mask.rules())
        if (r.Tq != Tq || r.Tk != Tk)
            throw ShapeError("flash_attention: mask [" + std::to_string(r.Tq) + ", " + std::to_string(r.Tk) + "] does not fit scores " +
                             scores.str());
    L.rules = mask.rules();
    if (!mask.tensor_part().defined()) return L;
    Tensor m = mask.tensor_part();
    const std::int64_t sd = batch.size() + 2;  // rank of the scores this mask would apply to
    if (m.dim() == 3 && sd == 4) m = m.unsqueeze(1);  // [B, 1, Tq, Tk]: shared by every head (Mask::apply's rule)
    bool fits = m.dim() <= sd;
    for (std::int64_t i = 1; fits && i <= m.dim(); ++i) fits = m.size(-i) == scores[sd - i] || m.size(-i) == 1;
    if (!fits) throw ShapeError("flash_attention: mask " + mask.tensor_part().shape().str() + " does not fit scores " + scores.str());
    L.allowed = m.contiguous();
    const Shape strides = contiguous_strides(L.allowed.shape());
    auto stride_of = [&](std::int64_t i) { return L.allowed.size(-i) == 1 ? 0 : strides[m.dim() - i]; };  // i from the end
    L.col_stride = stride_of(1);
    L.row_stride = m.dim() >= 2 ? stride_of(2) : 0;
    for (std::int64_t i = 3; i <= m.dim(); ++i) L.batch_strides[sd - i] = stride_of(i);
    return L;
}

// How many of the tile's bk keys any of its rows may see, by the rules' bands: causal and
// local allow no key past the last row's band (offset + i, + window), so the diagonal tile's
// products stop there instead of running to the block's end and exponentiating −inf.
// Rounded up to whole vectors of 16 (the tile product's fast path); the keys cut off would
// all have had weight 0, so the results are the same values. None (0) when the rows' bands
// all end before the tile: a local window's first rows, in a strip below.
std::int64_t keys_in_use(const MaskLayout& L, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk) {
    std::int64_t last = j0 + bk - 1;
    for (const MaskRule& r : L.rules) last = std::min(last, r.band(i0 + bq - 1).hi);
    return std::clamp<std::int64_t>((last - j0 + 1 + 15) / 16 * 16, 0, bk);
}

// A partly allowed tile in strips of kStrip query rows, each with its own keys_in_use: on a
// causal diagonal tile of 64, the first 16 rows see keys 0 .. 15 at most, the last 16 all
// 64, so the products touch 10 of the tile's 16 blocks of 16 × 16 instead of all of them.
// Every product below runs strip by strip: the query-side ones (S = q kᵀ, dP = dO vᵀ,
// o += P v, dQ += dS k) over a strip's first keys[s] keys, the key-side ones (dV += Pᵀ dO,
// dK += dSᵀ q) over the keys a strip adds, summing only over the rows from that strip down.
// What they leave out is weight 0 (P and dS vanish past a row's band), so the results are
// the whole tile's bits (tests/nn/test_flash_attention.cpp runs the same mask as a 0/1
// tensor, which goes in whole tiles). A tile the mask allows whole is one strip of all its rows.
constexpr std::int64_t kStrip = 16;
struct Strip {
    std::int64_t r, rows;  // the tile's rows r .. r + rows − 1
    std::int64_t kq, kn;   // it reads keys 0 .. kn − 1, and is the first strip to read kq .. kn − 1
};
struct Strips {
    std::int64_t count = 1, height = 0, bq = 0;  // strip s: rows s·height .. min(bq, (s + 1)·height) − 1
    std::int64_t keys[BQ / kStrip] = {};          // strip s reads keys 0 .. keys[s] − 1
    Strip operator[](std::int64_t s) const {
        return {s * height, std::min(height, bq - s * height), s ? keys[s - 1] : 0, keys[s]};
    }
    std::int64_t width() const { return keys[count - 1]; }  // the tile's keys in use
};

Strips strips_of(const MaskLayout& L, Cover c, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk) {
    Strips st;
    st.bq = bq;
    if (c == Cover::all || L.rules.empty()) {
        st.height = bq, st.keys[0] = keys_in_use(L, i0, bq, j0, bk);
        return st;
    }
    st.height = kStrip, st.count = (bq + kStrip - 1) / kStrip;
    for (std::int64_t s = 0; s < st.count; ++s) st.keys[s] = keys_in_use(L, i0 + s * kStrip, st[s].rows, j0, bk);
    return st;
}

// A partly allowed tile, for the softmax over its rows: keys[i] = how many of the tile's
// keys row i looks at, up to the last key of its rules' bands; the softmax takes
// S_i[keys[i], bk) as blocked and gives them weight 0 without reading them. Blocked keys
// before that are set to −inf, so exp gives them exactly 0: those before a band's start
// (a local window's), and those a rule's step (strided) or a mask tensor blocks, key by key.
template <typename T>
void mask_tile(const MaskLayout& L, const float* m, T* S, std::int64_t i0, std::int64_t bq, std::int64_t j0, std::int64_t bk,
               std::int64_t* keys) {
    constexpr T blocked = -std::numeric_limits<T>::infinity();
    bool per_key = m != nullptr;
    for (const MaskRule& r : L.rules) per_key |= r.step() > 1;
    for (std::int64_t i = 0; i < bq; ++i) {
        T* Si = S + i * bk;
        std::int64_t lo = j0, hi = j0 + bk - 1;  // allowed keys of row i0 + i, by the rules' bands
        for (const MaskRule& r : L.rules) {
            const MaskRule::Band b = r.band(i0 + i);
            lo = std::max(lo, b.lo), hi = std::min(hi, b.hi);
        }
        keys[i] = lo > hi ? 0 : std::clamp<std::int64_t>(hi + 1 - j0, 0, bk);  // lo > hi: nothing allowed
        std::fill(Si, Si + std::clamp<std::int64_t>(lo - j0, 0, keys[i]), blocked);
        if (per_key)
            for (std::int64_t j = std::max(lo, j0); j < j0 + keys[i]; ++j)
                if (!L.at(m, i0 + i, j)) Si[j - j0] = blocked;
    }
}

// ---- a tile's rows of maxima and exponentials: vectorised for float, std::exp for double ----

// m[i] = max(m[i], the first keys[i] scores of row i) for the rows of a [rows, width] tile.
void row_max_rows(const float* S, std::int64_t width, const std::int64_t* keys, float* m, std::int64_t rows) {
    ::attnlab::detail::row_max_rows(S, width, keys, m, rows);
}
void row_max_rows(const double* S, std::int64_t width, const std::int64_t* keys, double* m, std::int64_t rows) {
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < keys[i]; ++j) m[i] = std::max(m[i], S[i * width + j]);
}

// Row i of a [rows, width] tile -> P_i: exp(S_ij − m_i) for j < keys[i] and 0 after;
// sums[i] = Σ_j P_ij. Vectorised for float (softmax_row.hpp), std::exp for double.
void exp_shifted_rows(float* S, std::int64_t width, const std::int64_t* keys, const float* m, double* sums, std::int64_t rows) {
    ::attnlab::detail::exp_shifted_sum_rows(S, width, keys, m, sums, rows);
}
void exp_shifted_rows(double* S, std::int64_t width, const std::int64_t* keys, const double* m, double* sums, std::int64_t rows) {
    for (std::int64_t i = 0; i < rows; ++i) {
        double* Si = S + i * width;
        double s = 0;
        for (std::int64_t j = 0; j < keys[i]; ++j) s += (Si[j] = std::exp(Si[j] - m[i]));
        std::fill(Si + keys[i], Si + width, 0.0);
        sums[i] = s;
    }
}

// One operand as the kernel reads or writes it: row r of (batch, head) pair n starts at
// data + head[n] + r·ld, and its d elements are contiguous. For q split into heads as
// a view of [B, T, H, d_k], ld is H·d_k and head[b·H + h] is b·T·H·d_k + h·d_k.
template <typename T>
struct Rows {
    T* data = nullptr;
    std::int64_t ld = 0;
    std::vector<std::int64_t> head;  // element offset of row 0 of each n
    T* row(std::int64_t n, std::int64_t r) const { return data + head[static_cast<std::size_t>(n)] + r * ld; }
};

// t [..., T, d] with a unit stride in d (see readable()), as Rows.
template <typename T>
Rows<T> rows_of(const Tensor& t) {
    T* data;
    if constexpr (std::is_const_v<T>) data = t.const_data_ptr<std::remove_const_t<T>>();  // read only: no write counted
    else data = t.data_ptr<T>();
    Rows<T> x{data, t.strides()[t.dim() - 2], {}};
    const std::int64_t batch_dims = t.dim() - 2;
    std::int64_t N = 1;
    for (std::int64_t d = 0; d < batch_dims; ++d) N *= t.size(d);
    x.head.resize(static_cast<std::size_t>(N));
    std::int64_t index[Shape::kMaxDims] = {}, off = 0;  // n's index over the batch dims, and its offset
    for (std::int64_t n = 0; n < N; ++n) {
        x.head[static_cast<std::size_t>(n)] = off;
        for (std::int64_t d = batch_dims - 1; d >= 0; --d) {  // the next n: an odometer, no divisions
            off += t.strides()[d];
            if (++index[d] < t.size(d)) break;
            off -= index[d] * t.strides()[d], index[d] = 0;
        }
    }
    return x;
}

// t itself when the kernel can read it in place (each row's elements contiguous), else
// a contiguous copy.
Tensor readable(const Tensor& t) { return t.size(-1) <= 1 || t.strides()[t.dim() - 1] == 1 ? t : t.contiguous(); }

// An uninitialised tensor of `shape` whose dims lie in memory in the order of `like`'s
// strides, the last dim innermost: the output and the gradients take their input's
// layout (as PyTorch's CPU flash kernel does), so a transposed view in gives a
// transposed view out, and undoing the transpose is free. The values do not depend on it.
Tensor empty_laid_out_like(const Tensor& like, const Shape& shape, DType dt) {
    const std::int64_t r = like.dim();
    // The other dims by decreasing stride, ties in order (an insertion sort in a Shape: a
    // few dims, and no heap, which std::stable_sort of a std::vector took twice per call).
    Shape order, memory, back;
    for (std::int64_t d = 0; d < r - 1; ++d) {
        order.push_back(d);
        for (std::int64_t i = d; i > 0 && like.strides()[order[i - 1]] < like.strides()[order[i]]; --i) std::swap(order[i - 1], order[i]);
    }
    order.push_back(r - 1);
    if (std::is_sorted(order.begin(), order.end())) return empty(shape, dt);  // like is laid out in order (contiguous q)
    for (std::int64_t i = 0; i < r; ++i) memory.push_back(shape[order[i]]), back.push_back(0);
    for (std::int64_t i = 0; i < r; ++i) back[order[i]] = i;
    return empty(memory, dt).permute(back);
}

template <typename T>
struct Problem {
    std::int64_t N, Tq, Tk, dk, dv;
    Rows<const T> q, k, v;  // [N, Tq, dk], [N, Tk, dk], [N, Tk, dv]
    T scale;
    const MaskLayout* mask;
};

// A thread's scratch arrays, carved from one tensor (so the allocator's counters see
// them), each starting on its own cache line: one allocation, not one per array. At
// W6's shape the five forward arrays as five tensors were ten mallocs and five cache
// look-ups per call, against about 5 µs of work.
class ScratchBlock {
public:
    // n_k elements of U_k for each (U_k*&, n_k) pair given to carve().
    template <typename... U>
    void carve(std::pair<U*&, std::int64_t>... arrays) {
        std::int64_t bytes = 0;
        ((bytes += lines(arrays.second * std::int64_t(sizeof(U)))), ...);
        holder_ = empty({bytes / std::int64_t(sizeof(std::int64_t))}, kInt64);
        auto* at = reinterpret_cast<std::byte*>(holder_.data_ptr<std::int64_t>());
        ((arrays.first = reinterpret_cast<U*>(at), at += lines(arrays.second * std::int64_t(sizeof(U)))), ...);
    }

private:
    static std::int64_t lines(std::int64_t bytes) { return (std::max<std::int64_t>(bytes, 1) + 63) / 64 * 64; }
    Tensor holder_;
};

// Row stride of the kᵀ / vᵀ copies: Tk plus one cache line. With a power-of-two Tk,
// rows exactly Tk apart would all map to the same L1 sets, and the tile product walks
// down d_k of them at once, and each load would evict the one before.
inline std::int64_t transposed_stride(std::int64_t Tk) { return Tk + 16; }

// y[c, r] = x[r, c] for one 16 × 16 block of floats, through registers a kLanes-square
// block at a time (vec::transpose_block, which gemm's packing uses too): a load per row
// and a store per column of each block, where element by element it would be 256 loads
// and 256 stores (a large share of kernel_flash_fwd_16x4x32x16 in perf). Portable vector
// extensions serve every target as well as AVX-512 intrinsics here.
inline void transpose_16x16(const float* x, std::int64_t x_ld, float* y, std::int64_t y_ld) {
    namespace vec = ::attnlab::detail::vec;
    constexpr int W = vec::kLanes;
    static_assert(16 % W == 0);
    for (int r0 = 0; r0 < 16; r0 += W)
        for (int c0 = 0; c0 < 16; c0 += W) vec::transpose_block(x + r0 * x_ld + c0, x_ld, y + c0 * y_ld + r0, y_ld);
}

// xt[c, r] = x[r, c] for x [rows, cols]; x's rows are x_ld apart, xt's ld.
template <typename T>
void transpose(const T* x, std::int64_t x_ld, std::int64_t rows, std::int64_t cols, T* xt, std::int64_t ld) {
    constexpr std::int64_t b = 16;  // 16 × 16 blocks: both sides stay in cache
    for (std::int64_t r0 = 0; r0 < rows; r0 += b)
        for (std::int64_t c0 = 0; c0 < cols; c0 += b) {
            if constexpr (std::is_same_v<T, float>)
                if (r0 + b <= rows && c0 + b <= cols) {
                    transpose_16x16(x + r0 * x_ld + c0, x_ld, xt + c0 * ld + r0, ld);
                    continue;
                }
            for (std::int64_t r = r0; r < std::min(rows, r0 + b); ++r)
                for (std::int64_t c = c0; c < std::min(cols, c0 + b); ++c) xt[c * ld + r] = x[r * x_ld + c];
        }
}

// y[i, c] = x[i, c] · s for `rows` rows of `cols`; y is dense, x's rows are x_ld apart.
// Rows ld = cols apart are one run of rows·cols: one loop instead of one per row of
// d_k 16 (kernel_flash_fwd_16x4x32x16 spent 5-10% more time in per-row fills).
template <typename T>
void scaled_copy(const T* __restrict x, std::int64_t x_ld, std::int64_t rows, std::int64_t cols, T s, T* __restrict y) {
    if (x_ld == cols) cols *= rows, rows = 1;
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t c = 0; c < cols; ++c) y[i * cols + c] = x[i * x_ld + c] * s;
}

template <typename T>
void fill_rows(T* x, std::int64_t ld, std::int64_t rows, std::int64_t cols, T value) {
    if (ld == cols) cols *= rows, rows = 1;
    for (std::int64_t i = 0; i < rows; ++i) std::fill(x + i * ld, x + i * ld + cols, value);
}

// ---- forward: one (n, query block) tile row --------------------------------------

// The largest tile a problem has, [min(BQ, Tq), min(BK, Tk)]: at Tq = Tk = 32 (W6) that is
// 4 KB of scores, not a 128 KB buffer sized for the largest tile any problem could have.
inline std::int64_t tile_elements(std::int64_t Tq, std::int64_t Tk) { return std::min(BQ, Tq) * std::min(BK, Tk); }

// A thread's buffers, allocated once per chunk of tasks (not once per head).
template <typename T>
struct ForwardScratch {
    ScratchBlock block;
    T *kt, *qs, *S, *m;
    double* l;
    ForwardScratch(std::int64_t Tq, std::int64_t Tk, std::int64_t dk) {
        block.carve<T, T, T, T, double>({kt, dk * transposed_stride(Tk)},  // kᵀ of the current head, [dk, Tk] in rows of transposed_stride
                                        {qs, BQ * dk}, {S, tile_elements(Tq, Tk)}, {m, BQ}, {l, BQ});
    }
};

// lse: null when nobody will read it (no backward, not asked for).
template <typename T>
void forward_rows(const Problem<T>& p, std::int64_t n, std::int64_t i0, const Rows<T>& out, T* lse, ForwardScratch<T>& w) {
    constexpr T inf = std::numeric_limits<T>::infinity();
    const std::int64_t bq = std::min(BQ, p.Tq - i0), dk = p.dk, dv = p.dv, ldv = p.v.ld, ldo = out.ld;
    const T* v = p.v.row(n, 0);
    T* o = out.row(n, i0);  // [bq, dv] in rows ldo apart: the accumulator is the output itself
    const float* mb = p.mask->batch(n);
    scaled_copy(p.q.row(n, i0), p.q.ld, bq, dk, p.scale, w.qs);  // scale once per row, not per score
    // o is not zeroed first: the first key block the mask lets through writes it (a tile
    // product that does not accumulate adds its sum to 0, as one accumulating into zeros
    // would: the same bits), the later ones add to it, and a row block that no key block
    // reaches is zeroed at the end. Zeroing o first (and in backward dq, dk and dv) would be
    // one more pass over each of them, which the products would then read back.
    bool o_written = false;
    std::fill(w.m, w.m + bq, -inf);
    std::fill(w.l, w.l + bq, 0.0);
    for (std::int64_t j0 = 0; j0 < p.Tk; j0 += BK) {
        const Cover c = p.mask->cover(mb, i0, bq, j0, std::min(BK, p.Tk - j0));
        if (c == Cover::none) continue;  // e.g. causal, above the diagonal
        const Strips st = strips_of(*p.mask, c, i0, bq, j0, std::min(BK, p.Tk - j0));
        const std::int64_t bk = st.width();
        T* S = w.S;  // [bq, bk]
        for (std::int64_t s = 0; s < st.count; ++s) {  // S = q_I·scale k_Jᵀ
            const Strip x = st[s];
            detail::tile_product<T>(x.rows, x.kn, dk, w.qs + x.r * dk, dk, 1, w.kt + j0, transposed_stride(p.Tk), S + x.r * bk,
                                    bk, false);
        }
        // Row i's softmax runs over its first keys[i] keys, up to its last allowed one: on a
        // causal diagonal tile of 32, row 0 reads 1 score, not 32.
        std::int64_t keys[BQ];
        if (c == Cover::some) mask_tile(*p.mask, mb, S, i0, bq, j0, bk, keys);
        else std::fill(keys, keys + bq, bk);
        T m_new[BQ];
        double row_sum[BQ];
        std::copy(w.m, w.m + bq, m_new);
        row_max_rows(S, bk, keys, m_new, bq);
        for (std::int64_t i = 0; i < bq; ++i)
            if (m_new[i] == -inf) keys[i] = 0;  // every key so far blocked: nothing to add yet
        exp_shifted_rows(S, bk, keys, m_new, row_sum, bq);  // S_i -> P_i = exp(S_i − m_new)
        for (std::int64_t i = 0; i < bq; ++i) {
            if (m_new[i] == -inf) continue;
            if (w.m[i] != m_new[i] && w.m[i] != -inf) {  // the max moved: rescale what came before
                const T alpha = std::exp(w.m[i] - m_new[i]);
                w.l[i] *= alpha;
                for (std::int64_t c2 = 0; c2 < dv; ++c2) o[i * ldo + c2] *= alpha;
            }
            w.l[i] += row_sum[i];
            w.m[i] = m_new[i];
        }
        for (std::int64_t s = 0; s < st.count; ++s) {  // o += P v_J, or o = P v_J for the first block
            const Strip x = st[s];
            detail::tile_product<T>(x.rows, dv, x.kn, S + x.r * bk, bk, 1, v + j0 * ldv, ldv, o + x.r * ldo, ldo, o_written);
        }
        o_written = true;
    }
    if (!o_written) fill_rows(o, ldo, bq, dv, T(0));  // every key blocked
    for (std::int64_t i = 0; i < bq; ++i) {
        if (w.l[i] > 0) {
            const T inv = static_cast<T>(1.0 / w.l[i]);
            for (std::int64_t c2 = 0; c2 < dv; ++c2) o[i * ldo + c2] *= inv;
        }
        // fully masked row: output stays 0, lse −inf
        if (lse) lse[n * p.Tq + i0 + i] = w.l[i] > 0 ? w.m[i] + static_cast<T>(std::log(w.l[i])) : -inf;
    }
}

// Tasks are (head, run of query blocks); a task transposes its head's k once. How
// many runs a head is cut into depends on the thread count, but no value does: each
// query block is computed the same way whoever computes it.
template <typename T>
void forward(const Problem<T>& p, const Rows<T>& out, T* lse) {
    const std::int64_t blocks = (p.Tq + BQ - 1) / BQ;
    if (p.N == 0 || blocks == 0) return;
    const std::int64_t runs = std::clamp<std::int64_t>((2 * num_threads() + p.N - 1) / p.N, 1, blocks);
    const std::int64_t run_blocks = (blocks + runs - 1) / runs, tasks = p.N * runs;
    // Rows a task really computes: one decoding step (Tq 1) is 1 row, not a block of BQ,
    // so a KV-cached step stays on the caller instead of paying a hand-off per token.
    const double rows_per_task = double(std::min(run_blocks * BQ, p.Tq));
    const double flops_per_task = 2.0 * rows_per_task * double(p.Tk) * double(p.dk + p.dv);
    const auto grain = static_cast<std::int64_t>(std::max(1.0, 4e5 / std::max(flops_per_task, 1.0)));
    parallel_for(0, tasks, grain, [&](std::int64_t lo, std::int64_t hi) {
        ForwardScratch<T> w(p.Tq, p.Tk, p.dk);
        std::int64_t head = -1;
        for (std::int64_t t = lo; t < hi; ++t) {
            const std::int64_t n = t / runs, first = (t % runs) * run_blocks;
            if (n != head) transpose(p.k.row(n, 0), p.k.ld, p.Tk, p.dk, w.kt, transposed_stride(p.Tk)), head = n;
            for (std::int64_t b = first; b < std::min(blocks, first + run_blocks); ++b) forward_rows(p, n, b * BQ, out, lse, w);
        }
    });
}

// ---- backward: one (batch, head) pair, all of its dq, dk, dv ------------------------

template <typename T>
struct BackwardScratch {
    ScratchBlock block;
    T *kt, *vt, *qs, *D, *S, *dP;
    std::vector<unsigned char> dq_written;  // per query block: does dq hold its sums yet?
    explicit BackwardScratch(const Problem<T>& p) : dq_written(static_cast<std::size_t>((p.Tq + BQ - 1) / BQ)) {
        const std::int64_t ld = transposed_stride(p.Tk);
        block.carve<T, T, T, T, T, T>({kt, p.dk * ld},                    // kᵀ, [dk, Tk] in rows ld apart
                                      {vt, p.dv * ld},                    // vᵀ, [dv, Tk] in rows ld apart
                                      {qs, p.Tq * p.dk},                  // q·scale, [Tq, dk]
                                      {D, p.Tq},                          // D_i = dO_i · O_i = Σ_j P_ij dP_ij
                                      {S, tile_elements(p.Tq, p.Tk)},     // scores, then P
                                      {dP, tile_elements(p.Tq, p.Tk)});   // dP, then dS
    }
};

// A product over keys [a, b) of a key block into dk or dv (out: the block's first key row),
// whose keys [0, written) hold sums so far: it adds to those and writes the others (as o in
// forward_rows), and leaves [0, b) holding sums. product(lo, hi, accumulate) runs it over
// keys [lo, hi). A query block's strips read keys in order, each from where the last one
// ended, so a > written does not happen; were it to, the keys between are zeroed first.
template <typename T, typename Product>
void into_key_rows(std::int64_t& written, std::int64_t a, std::int64_t b, T* out, std::int64_t ld, std::int64_t width,
                   Product&& product) {
    if (a > written) fill_rows(out + written * ld, ld, a - written, width, T(0)), written = a;
    const std::int64_t mid = std::min(written, b);
    if (mid > a) product(a, mid, true);
    if (b > mid) product(mid, b, false);
    written = std::max(written, b);
}

template <typename T>
void backward_head(const Problem<T>& p, std::int64_t n, const Rows<const T>& out, const T* lse, const Rows<const T>& dout,
                   const Rows<T>& dq_rows, const Rows<T>& dk_rows, const Rows<T>& dv_rows, BackwardScratch<T>& w) {
    constexpr T inf = std::numeric_limits<T>::infinity();
    const std::int64_t Tq = p.Tq, Tk = p.Tk, dk = p.dk, dv = p.dv;
    const std::int64_t ld = transposed_stride(Tk);
    T *kt = w.kt, *vt = w.vt, *qs = w.qs, *D = w.D, *S = w.S, *dP = w.dP;
    const T* k = p.k.row(n, 0);
    const T* o = out.row(n, 0);
    const T* g = dout.row(n, 0);
    const T* L = lse + n * Tq;
    T *dq = dq_rows.row(n, 0), *dk_out = dk_rows.row(n, 0), *dv_out = dv_rows.row(n, 0);
    const std::int64_t ldk = p.k.ld, ldo = out.ld, ldg = dout.ld, ldq_grad = dq_rows.ld, ldk_grad = dk_rows.ld, ldv_grad = dv_rows.ld;
    scaled_copy(p.q.row(n, 0), p.q.ld, Tq, dk, p.scale, qs);
    transpose(k, ldk, Tk, dk, kt, ld);
    transpose(p.v.row(n, 0), p.v.ld, Tk, dv, vt, ld);
    for (std::int64_t i = 0; i < Tq; ++i) {
        T s = 0;
        for (std::int64_t c = 0; c < dv; ++c) s += g[i * ldg + c] * o[i * ldo + c];
        D[i] = s;
    }
    std::fill(w.dq_written.begin(), w.dq_written.end(), 0);
    const float* mb = p.mask->batch(n);
    for (std::int64_t j0 = 0; j0 < Tk; j0 += BK) {
        T *dk_J = dk_out + j0 * ldk_grad, *dv_J = dv_out + j0 * ldv_grad;
        std::int64_t dk_written = 0, dv_written = 0;  // keys of this block whose dk, dv hold sums: see into_key_rows
        for (std::int64_t i0 = 0; i0 < Tq; i0 += BQ) {
            const std::int64_t bq = std::min(BQ, Tq - i0);
            const Cover c = p.mask->cover(mb, i0, bq, j0, std::min(BK, Tk - j0));
            if (c == Cover::none) continue;
            const Strips st = strips_of(*p.mask, c, i0, bq, j0, std::min(BK, Tk - j0));
            const std::int64_t bk = st.width();
            for (std::int64_t s = 0; s < st.count; ++s) {  // S, as in forward
                const auto [r, rows, kq, kn] = st[s];
                detail::tile_product<T>(rows, kn, dk, qs + (i0 + r) * dk, dk, 1, kt + j0, ld, S + r * bk, bk, false);
            }
            std::int64_t keys[BQ];  // as in forward
            if (c == Cover::some) mask_tile(*p.mask, mb, S, i0, bq, j0, bk, keys);
            else std::fill(keys, keys + bq, bk);
            for (std::int64_t i = 0; i < bq; ++i)
                if (L[i0 + i] == -inf) keys[i] = 0;  // fully masked row: no weights, no gradient
            double unused[BQ];
            exp_shifted_rows(S, bk, keys, L + i0, unused, bq);  // P = exp(S − lse): the forward's weights, rebuilt
            const T* gI = g + i0 * ldg;
            for (std::int64_t s = 0; s < st.count; ++s) {
                const Strip x = st[s];  // named fields, not a structured binding: the lambdas capture r
                const std::int64_t r = x.r, rows = x.rows, kq = x.kq, kn = x.kn;
                if (kn > kq)  // dV_J += Pᵀ dO_I, for the keys strip s adds, over the rows that read them
                    into_key_rows(dv_written, kq, kn, dv_J, ldv_grad, dv, [&](std::int64_t lo, std::int64_t hi, bool add) {
                        detail::tile_product<T>(hi - lo, dv, bq - r, S + r * bk + lo, 1, bk, gI + r * ldg, ldg,
                                                dv_J + lo * ldv_grad, ldv_grad, add);
                    });
                detail::tile_product<T>(rows, kn, dv, gI + r * ldg, ldg, 1, vt + j0, ld, dP + r * bk, bk, false);  // dP = dO_I v_Jᵀ
                for (std::int64_t i = r; i < r + rows; ++i)  // dS = P ∘ (dP − D)
                    for (std::int64_t j = 0; j < kn; ++j) dP[i * bk + j] = S[i * bk + j] * (dP[i * bk + j] - D[i0 + i]);
            }
            unsigned char& dq_written = w.dq_written[static_cast<std::size_t>(i0 / BQ)];  // as o in forward_rows
            for (std::int64_t s = 0; s < st.count; ++s) {
                const Strip x = st[s];
                const std::int64_t r = x.r, rows = x.rows, kq = x.kq, kn = x.kn;
                if (kn > kq)  // dK_J += dSᵀ q_I·scale, as dV
                    into_key_rows(dk_written, kq, kn, dk_J, ldk_grad, dk, [&](std::int64_t lo, std::int64_t hi, bool add) {
                        detail::tile_product<T>(hi - lo, dk, bq - r, dP + r * bk + lo, 1, bk, qs + (i0 + r) * dk, dk,
                                                dk_J + lo * ldk_grad, ldk_grad, add);
                    });
                detail::tile_product<T>(rows, dk, kn, dP + r * bk, bk, 1, k + j0 * ldk, ldk, dq + (i0 + r) * ldq_grad, ldq_grad,
                                        dq_written);  // dQ_I += dS k_J
            }
            dq_written = 1;
        }
        const std::int64_t keys = std::min(BK, Tk - j0);  // those no query reads get no gradient
        fill_rows(dk_J + dk_written * ldk_grad, ldk_grad, keys - dk_written, dk, T(0));
        fill_rows(dv_J + dv_written * ldv_grad, ldv_grad, keys - dv_written, dv, T(0));
    }
    for (std::int64_t i0 = 0; i0 < Tq; i0 += BQ)
        if (!w.dq_written[static_cast<std::size_t>(i0 / BQ)])  // every key blocked
            fill_rows(dq + i0 * ldq_grad, ldq_grad, std::min(BQ, Tq - i0), dk, T(0));
    for (std::int64_t i = 0; i < Tq; ++i)  // dQ = scale·Σ_J dS k_J
        for (std::int64_t c = 0; c < dk; ++c) dq[i * ldq_grad + c] *= p.scale;
}

template <typename T>
void backward(const Problem<T>& p, const Rows<const T>& out, const T* lse, const Rows<const T>& dout, const Rows<T>& dq,
              const Rows<T>& dk, const Rows<T>& dv) {
    parallel_for(0, p.N, 1, [&](std::int64_t lo, std::int64_t hi) {
        BackwardScratch<T> w(p);
        for (std::int64_t n = lo; n < hi; ++n) backward_head(p, n, out, lse, dout, dq, dk, dv, w);
    });
}

template <typename T>
Problem<T> problem(std::int64_t N, const Tensor& q, const Tensor& k, const Tensor& v, double scale, const MaskLayout& mask) {
    return {N, q.size(-2), k.size(-2), q.size(-1), v.size(-1), rows_of<const T>(q), rows_of<const T>(k), rows_of<const T>(v),
            static_cast<T>(scale), &mask};
}

Shape batch_of(const Tensor& t) {
    Shape b = t.shape();
    b.erase(b.size() - 1), b.erase(b.size() - 1);
    return b;
}

// The forward, and its backward recorded. lse is made when the caller asked for it or a
// backward will need it: in inference (generation) nobody reads it, and it costs a log per row.
FlashAttentionResult attend(const Tensor& q_in, const Tensor& k_in, const Tensor& v_in, const Mask& mask,
                            std::optional<double> scale_opt, bool lse_wanted) {
    if (q_in.dim() < 2 || k_in.dim() != q_in.dim() || v_in.dim() != q_in.dim() || q_in.size(-1) != k_in.size(-1) ||
        k_in.size(-2) != v_in.size(-2) || batch_of(q_in) != batch_of(k_in) || batch_of(q_in) != batch_of(v_in))
        throw ShapeError("flash_attention: expected q [..., Tq, d_k], k [..., Tk, d_k], v [..., Tk, d_v] with the same batch dims; got q " +
                         q_in.shape().str() + ", k " + k_in.shape().str() + ", v " + v_in.shape().str());
    const DType dt = q_in.dtype();
    if (!is_floating(dt) || k_in.dtype() != dt || v_in.dtype() != dt)
        throw ValueError("flash_attention: q, k, v must share one float dtype (float32 or float64)");
    const double scale = attention_scale("flash_attention", q_in.size(-1), scale_opt);
    const Shape batch = batch_of(q_in);
    const std::int64_t N = batch.numel(), Tq = q_in.size(-2), Tk = k_in.size(-2), d_v = v_in.size(-1);
    auto layout = std::make_shared<MaskLayout>(mask_layout(mask, batch, Tq, Tk));
    // Detached copies of the handles only for a backward to keep (so that it does not
    // hold the graph); inference reads the inputs as they are.
    const bool recorded = needs_grad({q_in, k_in, v_in});
    auto kept = [recorded](const Tensor& t) { return readable(recorded ? t.detach() : t); };
    const Tensor q = kept(q_in), k = kept(k_in), v = kept(v_in);
    Shape out_shape = batch, lse_shape = batch;
    out_shape.push_back(Tq), out_shape.push_back(d_v), lse_shape.push_back(Tq);
    Tensor out = empty_laid_out_like(q, out_shape, dt);
    const Tensor lse = lse_wanted || recorded ? empty(lse_shape, dt) : Tensor();
    auto run = [&]<typename T>(T) {
        forward(problem<T>(N, q, k, v, scale, *layout), rows_of<T>(out), lse.defined() ? lse.data_ptr<T>() : nullptr);
    };
    if (dt == kFloat32) run(float{}); else run(double{});

    record(out, "flash_attention", {q_in, k_in, v_in},
           [q, k, v, o = recorded ? out.detach() : Tensor(), lse, layout, scale, N](const Tensor& grad) -> Grads {
               const Tensor g = readable(grad);
               Tensor dq = empty_laid_out_like(q, q.shape(), q.dtype()), dk = empty_laid_out_like(k, k.shape(), k.dtype()),
                      dv = empty_laid_out_like(v, v.shape(), v.dtype());
               auto run_backward = [&]<typename T>(T) {
                   backward(problem<T>(N, q, k, v, scale, *layout), rows_of<const T>(o), lse.const_data_ptr<T>(), rows_of<const T>(g),
                            rows_of<T>(dq), rows_of<T>(dk), rows_of<T>(dv));
               };
               if (q.dtype() == kFloat32) run_backward(float{}); else run_backward(double{});
               return {dq, dk, dv};
           });
    return {out, lse};
}

}  // namespace

FlashAttentionResult flash_attention_with_lse(const Tensor& q, const Tensor& k, const Tensor& v, const Mask& mask,
                                              std::optional<double> scale) {
    return attend(q, k, v, mask, scale, true);
}

Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Mask& mask, std::optional<double> scale) {
    return attend(q, k, v, mask, scale, false).output;
}

Tensor flash_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& additive_mask,
                       std::optional<double> scale) {
    return flash_attention(q, k, v, Mask::from_additive(additive_mask), scale);
}

}  // namespace attnlab::nn
