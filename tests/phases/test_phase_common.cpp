// test_phase_common.cpp — what the phases hand to the gallery: a key matrix and its labels.
#include <catch2/catch.hpp>
#include <filesystem>
#include <unistd.h>  // getpid

#include "phases/phase_common.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {
// Runs the body with a fresh temporary directory as the working directory (the phases write to out/).
template <typename F>
void in_temp_dir(F body) {
    const fs::path previous = fs::current_path();
    const fs::path dir = fs::temp_directory_path() / ("attnlab_phase_common_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::current_path(dir);
    try {
        body();
    } catch (...) {
        fs::current_path(previous);
        fs::remove_all(dir);
        throw;
    }
    fs::current_path(previous);
    fs::remove_all(dir);
}
}  // namespace

TEST_CASE("save_key_matrix writes the matrix and one line of labels per axis", "[phases][gallery]") {
    in_temp_dir([] {
        const Tensor m = tensor({{0.25, 0.75, 0.0}, {0.5, 0.25, 0.25}});
        phase::save_key_matrix("key", m, {"y1", "eos"}, {"<bos>", "the", "cat"});
        CHECK(testing::bit_identical(load_npy("out/data/key.npy"), m));
        CHECK(read_file("out/data/key.labels.txt") == "y1 eos\n<bos> the cat\n");
    });
}

TEST_CASE("save_key_matrix refuses labels that do not fit the matrix", "[phases][gallery]") {
    in_temp_dir([] {
        const Tensor m = zeros({2, 3});
        CHECK_THROWS_WITH(phase::save_key_matrix("key", m, {"a", "b"}, {"a", "b"}),
                          Catch::Contains("[2, 3]") && Catch::Contains("2 column labels"));
        CHECK_FALSE(fs::exists("out/data/key.npy"));
    });
}
