// fuzz_checkpoint.cpp — nn/checkpoint.cpp's loader on hostile files, through to a
// forward pass. The loader's public API takes a path, so each input is written to a
// private temporary file first.
// Round trip: a checkpoint that loads -> forward on a few ids; save_checkpoint ->
// load_checkpoint gives the same parameters bit for bit, the same kind and vocabulary,
// and the same logits bit for bit.
#include <cstddef>
#include <cstdint>

#include "autograd/node.hpp"
#include "nn/checkpoint.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

namespace {

Tensor logits_of(nn::Transformer& model) {
    const std::int64_t T = std::min<std::int64_t>(model.config().context, 4);
    std::vector<std::int64_t> ids;
    for (std::int64_t i = 0; i < T; ++i) ids.push_back(i % model.config().vocab_size);
    NoGradGuard no_grad;
    return model.forward(from_vector(ids, Shape{1, T}));  // [1, T, V]
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string in = fuzz::scratch("fuzz_checkpoint", "in"), out = fuzz::scratch("fuzz_checkpoint", "out");
    write_file_atomic(in, std::string_view(reinterpret_cast<const char*>(data), size));
    nn::LoadedCheckpoint loaded;
    Tensor logits;
    try {
        loaded = nn::load_checkpoint(in);
        if (loaded.model->config().vocab_size < 1 || loaded.model->config().context < 1) return 0;
        logits = logits_of(*loaded.model);
    } catch (const Error&) {
        return 0;
    }
    // The model and what describes it; any training state stays behind (it needs an optimizer).
    nn::save_checkpoint(out, *loaded.model, nn::CheckpointInfo{loaded.info.kind, loaded.info.vocab, {}});
    nn::LoadedCheckpoint back = nn::load_checkpoint(out);
    if (back.info.kind != loaded.info.kind) fuzz::fail("fuzz_checkpoint", "kind changed");
    if (back.info.vocab != loaded.info.vocab) fuzz::fail("fuzz_checkpoint", "vocabulary changed");
    const auto a = loaded.model->named_parameters(), b = back.model->named_parameters();
    if (a.size() != b.size()) fuzz::fail("fuzz_checkpoint", "parameter count changed");
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || !fuzz::same_tensor(a[i].tensor, b[i].tensor))
            fuzz::fail("fuzz_checkpoint", "parameter '" + a[i].name + "' changed");
    if (!fuzz::same_tensor(logits, logits_of(*back.model))) fuzz::fail("fuzz_checkpoint", "logits changed");
    return 0;
}
