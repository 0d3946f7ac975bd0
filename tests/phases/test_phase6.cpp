// test_phase6.cpp — phase 6 as a learner runs it: its flags, and the induction heads its
// default run must show (read back from the metrics.json it recorded).
#include <catch2/catch.hpp>
#include <filesystem>
#include <unistd.h>

#include "io/json.hpp"
#include "tests/support/run_program.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

testing::ProgramRun phase6(std::vector<std::string> args) {
    args.insert(args.begin(), testing::program_path("phase6_inside"));
    return testing::run_program(args, 300);
}

}  // namespace

TEST_CASE("phase 6 answers --help and refuses bad flags with exit status 2", "[phases][cli][phase6]") {
    const auto help = phase6({"--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.output, Catch::Contains("--steps N") && Catch::Contains("--seed N") && Catch::Contains("--out DIR") &&
                                Catch::Contains("--checkpoint PATH") && Catch::Contains("--sentence TEXT"));
    for (const auto& [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--steps", "10"}, "'10'"}, {{"--steps", "x"}, "'x'"}, {{"--seed", "-1"}, "'-1'"}, {{"--no-such", "1"}, "--no-such"}}) {
        const auto r = phase6(args);
        INFO(r.output);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.output, Catch::Contains(needle));
    }
}

TEST_CASE("phase 6's default run forms an induction head, and ablating its partner undoes it", "[phases][phase6][slow]") {
    const fs::path out = fs::temp_directory_path() / ("attnlab_phase6_" + std::to_string(::getpid()));
    const auto r = phase6({"--out", out.string()});
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const Json m = load_json((out / "phase6/metrics.json").string());
    const Json& ind = m.at("induction");
    const double uniform = ind.at("uniform_score").as_double();
    CHECK(ind.at("collapse_step").as_double() > 0);  // not learnt at initialisation
    CHECK(ind.at("final").at("induction_score").as_double() > 4 * uniform);  // a layer-2 head attends to the copied token
    CHECK(ind.at("final").at("loss_repeated").as_double() < 0.3 * ind.at("final").at("loss_first").as_double());
    CHECK(ind.at("induction_head").as_string().rfind("L2 ", 0) == 0);
    // Switching the feeding previous-token head off undoes the induction head and the repeats' loss.
    const Json& rows = m.at("ablation").at("rows");
    const Json* feeder = nullptr;
    for (const Json& row : rows.as_array())
        if (row.at("head").as_string() == m.at("ablation").at("feeder").as_string()) feeder = &row;
    REQUIRE(feeder != nullptr);
    CHECK(feeder->at("induction").as_double() < 0.5 * rows.as_array()[0].at("induction").as_double());
    CHECK(feeder->at("loss_repeated").as_double() > 3 * rows.as_array()[0].at("loss_repeated").as_double());
    // Activation patching on agreement: after the last layer the last position holds the whole answer,
    // after the first the subject's own position holds most of it, and some head carries it to the verb.
    const Json& patching = m.at("patching");
    CHECK(patching.at("clean_logit_difference").as_double() > 1);
    CHECK(patching.at("corrupted_logit_difference").as_double() < -1);
    const auto& residual = patching.at("residual").as_array();
    REQUIRE(residual.size() == 2);
    CHECK(residual[1].at("position_5").as_double() == 1.0);
    CHECK(residual[0].at("position_2").as_double() > 0.5);
    CHECK(patching.at("carriers").size() >= 1);
    // The logit lens on the grammar model: every layer brings the reading closer to the exact next
    // word, and the last one, the model's own prediction, is close to it.
    const Json& lens = m.at("logit_lens");
    const Json::Array& layers = lens.at("layers").as_array();
    REQUIRE(layers.size() == 3);  // the embedding and 2 blocks
    for (std::size_t l = 1; l < layers.size(); ++l)
        CHECK(layers[l].at("kl_sentences").as_double() < layers[l - 1].at("kl_sentences").as_double());
    CHECK(lens.at("kl_model").as_double() < 0.1);
    CHECK(lens.at("kl_model").as_double() < 0.2 * lens.at("kl_embedding").as_double());
    CHECK(layers.back().at("agrees_with_last").as_double() == 1.0);
    // Sampling: entropy rises with temperature; the cut-offs keep what they say.
    const Json& set = m.at("sampling").at("settings");
    CHECK(set.at("T 0.5").at("entropy").as_double() < set.at("T 1").at("entropy").as_double());
    CHECK(set.at("T 1").at("entropy").as_double() < set.at("T 2").at("entropy").as_double());
    CHECK(set.at("top-k 5").at("kept").as_double() == 5);
    CHECK(set.at("top-p 0.9").at("kept").as_double() < set.at("T 1").at("kept").as_double());
    CHECK(set.at("exact").at("tv_to_exact").as_double() == 0);
    for (const char* f : {"induction_loss.png", "induction_scores.png", "induction_heads_before_after.png", "induction_heads_animated.gif",
                          "patching_residual.png", "patching_heads.png", "logit_lens.png", "logit_lens_kl.png", "sampling.png"})
        CHECK(fs::exists(out / "phase6" / f));
    fs::remove_all(out);
}
