// test_check_layers.cpp — tools/check_layers.sh passes on the tree, and fails on a file that
// includes a header from a layer above its own, naming the file, the line and the header.
#include <catch2/catch.hpp>
#include <filesystem>

#include "io/fileio.hpp"
#include "tests/support/run_program.hpp"

using attnlab::testing::run_program;

namespace {

const std::string kSource = ATTNLAB_SOURCE_DIR;
const std::string kScript = kSource + "/tools/check_layers.sh";

// A scratch tree holding one file, `path`, with `text`.
std::string scratch(const std::string& name, const std::string& path, const std::string& text) {
    const std::string dir = kSource + "/build/test_tmp/check_layers/" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(std::filesystem::path(dir + "/" + path).parent_path());
    attnlab::write_file_atomic(dir + "/" + path, text);
    return dir;
}

}  // namespace

TEST_CASE("no file of the tree includes a header from a layer above its own", "[tools][layers]") {
    const auto r = run_program({"/bin/bash", kScript});
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("every include within its layer or below"));
}

TEST_CASE("check_layers names an upward include; same-layer, lower and system includes pass", "[tools][layers]") {
    struct Case {
        const char* name;
        const char* path;
        const char* text;
        int exit_code;
        const char* says;
    };
    for (const Case& c : {Case{"down", "training/t.cpp", "#include <vector>\n#include \"nn/mask.hpp\"\n#include \"training/x.hpp\"\n", 0,
                               "1 files, every include"},
                          Case{"beside", "tensor/t.cpp", "#include \"autograd/node.hpp\"\n", 0, "every include"},
                          Case{"up", "nn/t.cpp", "// nn\n#include \"tensor/ops.hpp\"\n#include \"training/train.hpp\"\n", 1,
                               "nn/t.cpp:3: includes training/train.hpp (nn/ may include: io assets tensor autograd)"},
                          Case{"side", "plots/t.hpp", "  #  include \"data/vocab.hpp\"\n", 1, "plots/t.hpp:1: includes data/vocab.hpp"},
                          Case{"program", "analyses/t.cpp", "#include \"phases/phase_common.hpp\"\n", 1,
                               "analyses/t.cpp:1: includes phases/phase_common.hpp"}}) {
        INFO(c.name);
        const auto r = run_program({"/bin/bash", kScript, scratch(c.name, c.path, c.text)});
        INFO(r.output);
        CHECK(r.exit_code == c.exit_code);
        CHECK_THAT(r.output, Catch::Contains(c.says));
    }
}
