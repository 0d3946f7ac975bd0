// fuzz_seq2seq_checkpoint.cpp — nn/seq2seq_checkpoint.cpp's loader on hostile files. The
// loader takes a path, so each input is written to a private temporary file first.
// Round trip: a file that loads -> save_seq2seq with its training state (the optimizer's
// moments through an Adam that loads them, the step, the data generator) -> load_seq2seq
// gives the same configuration, parameters and moments bit for bit, the same step,
// generator state and caller metadata.
#include <cstddef>
#include <cstdint>

#include "io/fileio.hpp"
#include "nn/optim.hpp"
#include "nn/seq2seq_checkpoint.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace attnlab;

namespace {

void same_parameters(const std::vector<nn::NamedParameter>& a, const std::vector<nn::NamedParameter>& b, const char* what) {
    if (a.size() != b.size()) fuzz::fail("fuzz_seq2seq_checkpoint", std::string(what) + ": count changed");
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].name != b[i].name || !fuzz::same_tensor(a[i].tensor, b[i].tensor))
            fuzz::fail("fuzz_seq2seq_checkpoint", std::string(what) + " '" + a[i].name + "' changed");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string in = fuzz::scratch("fuzz_seq2seq_checkpoint", "in"), out = fuzz::scratch("fuzz_seq2seq_checkpoint", "out");
    write_file_atomic(in, std::string_view(reinterpret_cast<const char*>(data), size));
    nn::LoadedSeq2Seq loaded;
    try {
        loaded = nn::load_seq2seq(in);
    } catch (const Error&) {
        return 0;
    }
    nn::Adam adam(loaded.model->named_parameters());
    adam.load_state(loaded.optimizer_state);  // the loader checked names and shapes: this must not throw
    const nn::TrainingState state{&adam, loaded.step, loaded.data_rng, {}};
    nn::save_seq2seq(out, *loaded.model, loaded.extra, loaded.has_training_state ? &state : nullptr);
    const nn::LoadedSeq2Seq back = nn::load_seq2seq(out);
    const nn::Seq2SeqConfig &a = loaded.model->config(), &b = back.model->config();
    if (a.vocab != b.vocab || a.embed != b.embed || a.hidden != b.hidden || a.attn != b.attn || a.attention != b.attention ||
        a.positions != b.positions || a.scoring != b.scoring || nn::normalizer_flag(a.normalizer) != nn::normalizer_flag(b.normalizer))
        fuzz::fail("fuzz_seq2seq_checkpoint", "configuration changed");
    same_parameters(loaded.model->named_parameters(), back.model->named_parameters(), "parameter");
    if (back.extra != loaded.extra) fuzz::fail("fuzz_seq2seq_checkpoint", "caller metadata changed");
    if (back.has_training_state != loaded.has_training_state || back.step != loaded.step || back.data_rng != loaded.data_rng)
        fuzz::fail("fuzz_seq2seq_checkpoint", "training state changed");
    // The moments in the order the optimizer keeps them: by buffer, then by parameter.
    if (loaded.has_training_state) same_parameters(adam.state(), back.optimizer_state, "optimizer state");
    return 0;
}
