// test_data_parallel.cpp — a training step split over the batch: the same gradient as the
// whole batch up to rounding, the same bits on any thread count, the plain step at 1 shard.
#include <catch2/catch.hpp>

#include "autograd/node.hpp"
#include "nn/data_parallel.hpp"
#include "nn/loss.hpp"
#include "tensor/ops.hpp"
#include "tensor/parallel.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

namespace {

TransformerConfig config(bool causal, double dropout = 0) {
    TransformerConfig c;
    c.vocab_size = 13, c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context = 8, c.causal = causal;
    c.dropout = dropout;
    return c;
}

// A masked-token batch of 5 rows: padded past each row's length, and most targets ignored,
// unevenly (row 0 has six, row 4 one), so a shard's weight is not its share of the rows.
struct Batch {
    Tensor ids, targets;
    Mask padding;
};
Batch masked_batch() {
    Generator gen(7);
    const Tensor ids = randint(0, 13, {5, 8}, gen);
    std::vector<std::int64_t> t(40, kIgnoreIndex);
    const std::int64_t kept[5] = {6, 2, 3, 2, 1};
    for (std::int64_t r = 0; r < 5; ++r)
        for (std::int64_t j = 0; j < kept[r]; ++j) t[static_cast<std::size_t>(r * 8 + j)] = (r * 5 + j * 3) % 13;
    return {ids, from_vector(t, {5, 8}), Mask::padding({8, 6, 8, 5, 7}, 8)};
}

std::vector<Tensor> grads(const Transformer& m) {
    std::vector<Tensor> g;
    for (const Tensor& p : m.parameters()) g.push_back(p.grad().clone());
    return g;
}

// Loss and gradients of one step of a fresh model (seed 3) split into `shards`, on `threads`.
std::pair<double, std::vector<Tensor>> step(const TransformerConfig& c, const Batch& b, int shards, int threads,
                                            std::uint64_t dropout_seed = 0) {
    const int before = num_threads();
    set_num_threads(threads);
    Transformer m(c, 3);
    Generator dropout(dropout_seed);
    DataParallel parallel(m, shards);
    const double loss = parallel.forward_backward(b.ids, b.targets, b.padding, &dropout);
    set_num_threads(before);
    return {loss, grads(m)};
}

}  // namespace

TEST_CASE("shard_rows splits rows in order, the first ones one row longer", "[nn][data_parallel]") {
    using R = std::pair<std::int64_t, std::int64_t>;
    CHECK(shard_rows(16, 2, 0) == R{0, 8});
    CHECK(shard_rows(16, 2, 1) == R{8, 8});
    CHECK(shard_rows(5, 3, 0) == R{0, 2});
    CHECK(shard_rows(5, 3, 1) == R{2, 2});
    CHECK(shard_rows(5, 3, 2) == R{4, 1});
}

TEST_CASE("Mask::batch_rows keeps a padding mask's rows and shares a rule mask", "[nn][data_parallel][mask]") {
    const Mask pad = Mask::padding({1, 2, 3}, 3);
    CHECK(bit_identical(pad.batch_rows(1, 2).allowed(), pad.allowed().narrow(0, 1, 2)));
    const Mask causal = Mask::causal(4);
    CHECK(causal.batch_rows(0, 1).rules().size() == 1);
    CHECK(bit_identical(causal.batch_rows(2, 1).allowed(), causal.allowed()));
    CHECK_THROWS_WITH(pad.batch_rows(2, 2), Catch::Contains("Mask::batch_rows") && Catch::Contains("3 sequences"));
}

TEST_CASE("shards give the whole batch's loss and gradient, weighted by counted targets", "[nn][data_parallel]") {
    const Batch b = masked_batch();
    const auto [whole_loss, whole] = step(config(false), b, 1, 1);
    for (int shards : {2, 3, 5}) {
        INFO("shards " << shards);
        const auto [loss, g] = step(config(false), b, shards, 1);
        CHECK(loss == Approx(whole_loss).epsilon(1e-6));
        for (std::size_t i = 0; i < g.size(); ++i) CHECK_THAT(g[i], IsCloseTo(whole[i], 1e-6, 1e-4));
    }
    // Weighting each shard by its share of the rows instead of its share of the counted
    // targets would be wrong here: the first shard (rows 0-1) holds 8 of the 14 targets.
    Transformer m(config(false), 3);
    const Tensor first = cross_entropy(m.forward(b.ids.narrow(0, 0, 2), b.padding.batch_rows(0, 2)), b.targets.narrow(0, 0, 2));
    const Tensor rest = cross_entropy(m.forward(b.ids.narrow(0, 2, 3), b.padding.batch_rows(2, 3)), b.targets.narrow(0, 2, 3));
    CHECK(first.item() * 8 / 14 + rest.item() * 6 / 14 == Approx(whole_loss).epsilon(1e-6));
    CHECK(std::abs(first.item() * 2 / 5 + rest.item() * 3 / 5 - whole_loss) > 1e-3);
}

TEST_CASE("a split step is the same bits on one thread and on two", "[nn][data_parallel][threads]") {
    const Batch b = masked_batch();
    for (int shards : {2, 3}) {
        INFO("shards " << shards);
        const auto [loss1, g1] = step(config(false), b, shards, 1);
        const auto [loss2, g2] = step(config(false), b, shards, 2);
        CHECK(loss1 == loss2);
        for (std::size_t i = 0; i < g1.size(); ++i) CHECK(bit_identical(g1[i], g2[i]));
    }
    // With dropout each shard draws from its own generator, seeded in shard order.
    const auto [d1, dg1] = step(config(true, 0.2), b, 2, 1, 11);
    const auto [d2, dg2] = step(config(true, 0.2), b, 2, 2, 11);
    const auto [d3, dg3] = step(config(true, 0.2), b, 2, 2, 12);
    CHECK(d1 == d2);
    for (std::size_t i = 0; i < dg1.size(); ++i) CHECK(bit_identical(dg1[i], dg2[i]));
    CHECK(d1 != d3);  // another seed drops other units
}

TEST_CASE("one shard is the plain step on the model, bit for bit", "[nn][data_parallel]") {
    const Batch b = masked_batch();
    const auto [loss, g] = step(config(false), b, 1, 1);
    Transformer m(config(false), 3);
    Tensor plain = cross_entropy(m.forward(b.ids, b.padding), b.targets);
    plain.backward();
    CHECK(loss == plain.item());
    const std::vector<Tensor> pg = grads(m);
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(bit_identical(g[i], pg[i]));
}

TEST_CASE("the split adds into gradients already there, and the weights stay shared", "[nn][data_parallel]") {
    const Batch b = masked_batch();
    Transformer m(config(false), 3);
    DataParallel parallel(m, 2);
    parallel.forward_backward(b.ids, b.targets, b.padding);
    const std::vector<Tensor> once = grads(m);
    parallel.forward_backward(b.ids, b.targets, b.padding);  // no zero_grad: accumulates, as backward() does
    const std::vector<Tensor> twice = grads(m);
    for (std::size_t i = 0; i < once.size(); ++i) CHECK_THAT(twice[i], IsCloseTo(mul(once[i], scalar(2.0)), 1e-6, 1e-5));
    // An in-place update of the model's weights is what the replicas compute with next.
    {
        NoGradGuard no_grad;  // as an optimiser's step
        fill_(m.head.weight, 0.0);
    }
    m.zero_grad();
    const double loss = parallel.forward_backward(b.ids, b.targets, b.padding);
    CHECK(loss == Approx(std::log(13.0)).epsilon(1e-6));  // zero logits: uniform over the 13 tokens
}

TEST_CASE("DataParallel rejects what it cannot split", "[nn][data_parallel][errors]") {
    Transformer m(config(true), 3);
    CHECK_THROWS_WITH(DataParallel(m, 0), Catch::Contains("DataParallel") && Catch::Contains("got 0"));
    DataParallel parallel(m, 2);
    const Tensor ids = zeros({2, 4}, kInt64);
    CHECK_THROWS_WITH(parallel.forward_backward(ids, zeros({2, 3}, kInt64)),
                      Catch::Contains("DataParallel::forward_backward") && Catch::Contains("[2, 3]"));
    NoGradGuard no_grad;
    CHECK_THROWS_WITH(parallel.forward_backward(ids, ids), Catch::Contains("gradient recording is off"));
}
