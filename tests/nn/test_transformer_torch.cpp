// test_transformer_torch.cpp — TinyGPT against the same model written in plain PyTorch.
//
// tools/make_tinygpt_fixture.py builds TinyGPT (causal and bidirectional) from torch.nn
// parts, saves its state_dict as .safetensors and records logits, loss and every
// gradient on a fixed batch. Loading those weights by name into nn::Transformer and
// getting the same numbers shows the two are one model: the names, the [out, in]
// weight layout and the arithmetic all agree, so checkpoints move between them.
#include <catch2/catch.hpp>
#include <set>

#include "nn/loss.hpp"
#include "io/safetensors.hpp"
#include "nn/transformer.hpp"
#include "io/npy.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::nn;
using attnlab::testing::IsCloseTo;

static std::string tinygpt_fixture(const std::string& file) {
    return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/tinygpt/" + file;
}

TEST_CASE("TinyGPT matches PyTorch: weights load by name, same logits, loss and gradients",
          "[nn][transformer][pytorch]") {
    for (const bool causal : {true, false}) {
        const std::string variant = causal ? "causal" : "bidirectional";
        INFO("variant " << variant);
        const SafetensorsFile weights = load_safetensors(tinygpt_fixture(variant + ".safetensors"));
        const SafetensorsFile grads = load_safetensors(tinygpt_fixture(variant + ".grads.safetensors"));

        TransformerConfig config;  // the sizes in make_tinygpt_fixture.py
        config.vocab_size = 13, config.d_model = 16, config.n_heads = 4, config.n_layers = 2, config.context = 8;
        config.causal = causal;
        Transformer model(config, /*seed=*/123);

        // The same set of names on both sides: nothing PyTorch has is missing here, and nothing extra.
        std::set<std::string> ours, theirs;
        for (const auto& p : model.named_parameters()) ours.insert(p.name);
        for (const auto& t : weights.tensors) theirs.insert(t.name);
        CHECK(ours == theirs);
        for (auto& p : model.named_parameters()) {
            INFO("parameter " << p.name);
            REQUIRE(p.tensor.shape() == weights.at(p.name).shape());
            copy_(p.tensor.detach(), weights.at(p.name));
        }

        const Tensor ids = load_npy(tinygpt_fixture(variant + ".ids.npy"));
        const Tensor targets = load_npy(tinygpt_fixture(variant + ".targets.npy"));
        const Tensor logits = model.forward(ids);
        CHECK_THAT(logits, IsCloseTo(load_npy(tinygpt_fixture(variant + ".logits.npy")), 1e-5, 1e-5));

        const Tensor loss = cross_entropy(logits.reshape({-1, config.vocab_size}), targets.reshape({-1}));
        CHECK_THAT(loss, IsCloseTo(load_npy(tinygpt_fixture(variant + ".loss.npy")), 1e-6, 1e-6));
        loss.backward();
        for (const auto& p : model.named_parameters()) {
            INFO("gradient of " << p.name);
            CHECK_THAT(p.tensor.grad(), IsCloseTo(grads.at(p.name), 1e-5, 1e-4));
        }
    }
}
