// test_gallery.cpp — the gallery page shows the caption each phase recorded beside its figure
// (phase::Output::figure writes captions.json), so a caption cannot drift from its figure.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "app/report.hpp"
#include "phases/phase_common.hpp"
#include "plots/bar_chart.hpp"
#include "tests/support/bad_input.hpp"
#include "tests/support/run_program.hpp"
#include "tools/gallery_order.hpp"

using namespace attnlab;
using attnlab::testing::fresh_dir;
using attnlab::testing::program_path;
using attnlab::testing::run_program;
using Catch::Matchers::Contains;

TEST_CASE("gallery: each figure's caption is the one its phase recorded with it", "[tools][gallery]") {
    const std::string out = fresh_dir("gallery_captions");
    phase::Output phase1(out, "phase7");  // a phase without headline numbers
    phase1.figure(plots::bar_chart({"a", "b"}, {1.0, 2.0}, {}), "two_bars", "Phase 1: two bars & <one> caption.");
    phase1.figure(plots::bar_chart({"c"}, {3.0}, {}), "one_bar", "Phase 1: a second figure, a second caption.");
    phase1.save_metrics();
    const Json captions = load_json(out + "/phase7/captions.json");
    CHECK(captions.at("two_bars").as_string() == "Phase 1: two bars & <one> caption.");
    CHECK(captions.size() == 2);

    const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const std::string html = read_file(out + "/index.html", 1 << 24);
    CHECK_THAT(html, Contains("<b>two_bars</b>: Phase 1: two bars &amp; &lt;one&gt; caption.</figcaption>"));
    CHECK_THAT(html, Contains("<b>one_bar</b>: Phase 1: a second figure, a second caption.</figcaption>"));
}

TEST_CASE("gallery: an animation is a figure of its own, under the caption it was saved with", "[tools][gallery]") {
    const std::string out = fresh_dir("gallery_animation");
    phase::Output phase(out, "phase7");
    const plots::Figure still = plots::bar_chart({"a", "b"}, {1.0, 2.0}, {});
    phase.figure(still, "bars", "The bars, still.");
    phase.animation({still, plots::bar_chart({"a", "b"}, {2.0, 1.0}, {})}, "bars_animated", "The bars, swapping.", 20);
    phase.save_metrics();
    CHECK(load_json(out + "/phase7/captions.json").at("bars_animated").as_string() == "The bars, swapping.");
    REQUIRE(std::filesystem::exists(out + "/phase7/bars_animated.gif"));
    CHECK_FALSE(std::filesystem::exists(out + "/phase7/bars_animated.png"));

    const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const std::string html = read_file(out + "/index.html", 1 << 24);
    // the GIF alone: shown and linked as itself, under its own caption; the still keeps its own
    CHECK_THAT(html, Contains("<a href=\"phase7/bars_animated.gif\"><img src=\"phase7/bars_animated.gif\""));
    CHECK_THAT(html, Contains("<b>bars_animated</b>: The bars, swapping.</figcaption>"));
    CHECK_THAT(html, Contains("<img src=\"phase7/bars.png\""));
    CHECK_THAT(html, Contains("<b>bars</b>: The bars, still.</figcaption>"));
}

TEST_CASE("gallery: a captions.json that is not name -> text is a named error", "[tools][gallery][bad-input]") {
    const std::string out = fresh_dir("gallery_bad_captions");
    phase::Output phase2(out, "phase8");
    phase2.figure(plots::bar_chart({"a"}, {1.0}, {}), "bars", "fine");
    phase2.save_metrics();
    write_file_atomic(out + "/phase8/captions.json", "{\"bars\": 3}");
    const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.output, Contains("captions.json': the caption of 'bars' is not a string"));
}

TEST_CASE("gallery: a phase's headlines are the ones it declared, in its order, and nothing else", "[tools][gallery]") {
    const std::string out = fresh_dir("gallery_headlines");
    phase::Output phase2(out, "phase2");  // a real phase number: its headlines come from its file, not from the gallery
    phase2.figure(plots::bar_chart({"a"}, {1.0}, {}), "bars", "bars");
    Json& m = phase2.metrics();
    m["single_vs_multi"]["multi_head_model"]["val_loss"] = 1.25;  // recorded, not declared: not shown
    lab::headline(m, "zeta", 0.123456, "a <declared> loss");
    lab::headline(m, "alpha", 42, "a count", 0);
    phase2.save_metrics();
    const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const std::string html = read_file(out + "/index.html", 1 << 24);
    const auto items = html.substr(html.find("<ul class=\"numbers\">"));
    CHECK(items.substr(0, items.find("</ul>")) ==
          "<ul class=\"numbers\">\n<li>a &lt;declared&gt; loss: 0.123</li>\n<li>a count: 42</li>\n");
    CHECK(html.find("1.25") == std::string::npos);
}

TEST_CASE("gallery: a malformed headline is a named error", "[tools][gallery][bad-input]") {
    for (const std::string bad : {R"("headlines": [1])", R"("headlines": {"k": {"value": "x", "caption": "c", "decimals": 3}})",
                                  R"("headlines": {"k": {"value": 1, "decimals": 3}})",
                                  R"("headlines": {"k": {"value": 1, "caption": "c", "decimals": 99}})"}) {
        INFO(bad);
        const std::string out = fresh_dir("gallery_bad_headlines");
        std::filesystem::create_directories(out + "/phase3");
        write_file_atomic(out + "/phase3/metrics.json", "{" + bad + "}");
        const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
        CHECK(run.exit_code == 1);
        CHECK_THAT(run.output, Contains("phase3/metrics.json'"));
        CHECK_THAT(run.output, Contains("headline"));
    }
}

TEST_CASE("gallery and plots_demo: --help, and exit 2 on a bad flag or value", "[tools][gallery][cli]") {
    for (const std::string program : {"gallery", "plots_demo"}) {
        const attnlab::testing::ProgramRun help = run_program({program_path(program), "--help"});
        CHECK(help.exit_code == 0);
        CHECK_THAT(help.output, Contains("--out DIR"));
        const attnlab::testing::ProgramRun bad = run_program({program_path(program), "--bogus", "1"});
        CHECK(bad.exit_code == 2);
        CHECK_THAT(bad.output, Contains("--bogus"));
    }
    const attnlab::testing::ProgramRun frames =
        run_program({program_path("plots_demo"), "--out", fresh_dir("plots_demo_bad"), "--frames", "37"});
    CHECK(frames.exit_code == 2);
    CHECK_THAT(frames.output, Contains("--frames"));
}

TEST_CASE("gallery: each phase's figures in the phase's order, its key figure first, any others after by name",
          "[tools][gallery]") {
    const std::string out = fresh_dir("gallery_order");
    phase::Output phase4(out, "phase4");
    for (const std::string name : {"zz_learner_added", "attention_while_it_learns", "bidirectional_vs_causal", "causal_mask"})
        phase4.figure(plots::bar_chart({"a"}, {1.0}, {}), name, "caption of " + name);
    phase4.save_metrics();
    const attnlab::testing::ProgramRun run = run_program({program_path("gallery"), "--out", out});
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    const std::string html = read_file(out + "/index.html", 1 << 24);
    const auto at = [&](const std::string& name) { return html.find("<b>" + name + "</b>"); };
    REQUIRE(at("causal_mask") != std::string::npos);
    CHECK(at("causal_mask") < at("bidirectional_vs_causal"));
    CHECK(at("bidirectional_vs_causal") < at("attention_while_it_learns"));
    CHECK(at("attention_while_it_learns") < at("zz_learner_added"));
    REQUIRE(at("zz_learner_added") != std::string::npos);

    CHECK(gallery::ordered_figures(1, {"b", "autograd_graph", "a", "attention_heatmap"}) ==
          std::vector<std::string>{"attention_heatmap", "autograd_graph", "a", "b"});
    CHECK(gallery::ordered_figures(9, {"b", "a"}) == std::vector<std::string>{"a", "b"});  // an unlisted phase: by name
}

TEST_CASE("gallery: every figure in the order list is one its phase draws, listed once", "[tools][gallery]") {
    // The phases' sources name each figure as a string literal: a renamed figure fails here.
    std::string sources;
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::string(ATTNLAB_SOURCE_DIR) + "/phases"))
        if (e.path().extension() == ".cpp") sources += read_file(e.path().string(), 1 << 24);
    for (const auto& [phase, names] : gallery::figure_order()) {
        INFO("phase " << phase);
        CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
        for (const std::string& name : names) {
            INFO(name);
            CHECK(sources.find("\"" + name + "\"") != std::string::npos);
        }
    }
    CHECK(gallery::figure_order().at(4).front() == "causal_mask");  // phase 4 opens with its mask
}
