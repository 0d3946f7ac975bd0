// test_reading_path.cpp — tools/check_reading_path.sh passes on the tree, and fails on a
// path file that outgrows its budget or pulls in fast machinery.
#include <catch2/catch.hpp>
#include <filesystem>

#include "io/fileio.hpp"
#include "tests/support/run_program.hpp"

using attnlab::testing::run_program;

namespace {

const std::string kSource = ATTNLAB_SOURCE_DIR;
const std::string kScript = kSource + "/tools/check_reading_path.sh";

// A scratch tree holding one path file with `text`, and a page listing it with `budget`.
std::string scratch(const std::string& name, const std::string& text, int budget) {
    const std::string dir = kSource + "/build/test_tmp/reading_path/" + name;
    std::filesystem::create_directories(dir + "/tensor");
    attnlab::write_file_atomic(dir + "/tensor/op.cpp", text);
    attnlab::write_file_atomic(dir + "/page.md", "# path\n\n### 1. `tensor/op.cpp` — an op (budget " + std::to_string(budget) +
                                                     " lines)\nwhat to look for\n");
    return dir;
}

}  // namespace

TEST_CASE("the reading path of docs/read-the-source.md is at most 12 files, each small and free of fast machinery",
          "[tools][reading-path]") {
    const auto r = run_program({"/bin/bash", kScript, kSource + "/docs/read-the-source.md", kSource});
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("reading path: 12 files") && Catch::Contains("tensor/matmul.cpp"));
}

TEST_CASE("check_reading_path fails on a fast header, intrinsics, the thread pool or an overgrown file",
          "[tools][reading-path]") {
    const std::string plain = "// the formula\nfloat dot(const float* a, const float* b, int n) {\n"
                              "    float s = 0;  // parallel_for is named in a comment only\n"
                              "    for (int i = 0; i < n; ++i) s += a[i] * b[i];\n    return s;\n}\n";
    {
        const std::string dir = scratch("plain", plain, 10);
        const auto r = run_program({"/bin/bash", kScript, dir + "/page.md", dir});
        INFO(r.output);
        CHECK(r.exit_code == 0);
    }
    struct Bad {
        const char* name;
        std::string text;
        int budget;
        const char* why;
    };
    for (const Bad& b : {Bad{"header", "#include \"tensor/gemm.hpp\"\n" + plain, 20, "fast kernel's header"},
                         Bad{"intrinsics", "#include <immintrin.h>\n" + plain, 20, "fast kernel's header"},
                         Bad{"vector", plain + "__m256 x = _mm256_setzero_ps();\n", 20, "fast machinery"},
                         Bad{"pool", plain + "void f() { parallel_for(0, 8, 1, body); }\n", 20, "fast machinery"},
                         Bad{"long", plain, 3, "over its budget of 3"}}) {
        INFO(b.name);
        const std::string dir = scratch(b.name, b.text, b.budget);
        const auto r = run_program({"/bin/bash", kScript, dir + "/page.md", dir});
        INFO(r.output);
        CHECK(r.exit_code == 1);
        CHECK_THAT(r.output, Catch::Contains("tensor/op.cpp") && Catch::Contains(b.why));
    }
}
