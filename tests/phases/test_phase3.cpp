// test_phase3.cpp — the explorer page builder (explorer/explorer.hpp): rounding,
// the data layout, safe embedding, and filling the template.
// What the page then shows in a browser is checked by tools/browser_test (make test-browser).
#include <catch2/catch.hpp>
#include <filesystem>

#include "explorer/explorer.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

// A fresh template directory holding the four files the page is built from.
std::string write_template(const std::string& html, const std::string& css = "b{}", const std::string& js = "x=1;") {
    const std::string dir = (std::filesystem::temp_directory_path() / "attnlab_test_explorer").string();
    std::filesystem::create_directories(dir);
    write_file_atomic(dir + "/explorer.html", html);
    write_file_atomic(dir + "/explorer.css", css);
    write_file_atomic(dir + "/explorer.js", js);
    write_file_atomic(dir + "/model.js", "m=1;");
    write_file_atomic(dir + "/gradients.js", "g=1;");
    return dir;
}

}  // namespace

TEST_CASE("weights are rounded to 4 decimals, half away from zero", "[phase3][explorer]") {
    CHECK(explorer::round_weight(0.25) == 0.25);
    CHECK(explorer::round_weight(0.00004) == 0.0);   // a tiny weight becomes 0: no line is drawn for it
    CHECK(explorer::round_weight(0.00005) == 0.0001);
    CHECK(explorer::round_weight(0.99996) == 1.0);
    CHECK(explorer::round_weight(1.0 / 3) == 0.3333);
}

TEST_CASE("attention_json lays weights out as [layer][head][query][key]", "[phase3][explorer]") {
    // Layer 0: head 0 is causal uniform, head 1 the identity; layer 1: head h = layer 0's head 1 - h.
    const Tensor causal = tensor({{1, 0, 0}, {0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}});
    const Tensor eye = tensor({{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
    const Json j = explorer::attention_json({stack({causal, eye}, 0), stack({eye, causal}, 0)});
    REQUIRE(j.size() == 2);
    REQUIRE(j.as_array()[0].size() == 2);
    const auto w = [&](std::size_t l, std::size_t h, std::size_t i, std::size_t k) {
        return j.as_array()[l].as_array()[h].as_array()[i].as_array()[k].as_double();
    };
    CHECK(w(0, 0, 1, 0) == 0.5);
    CHECK(w(0, 0, 0, 2) == 0.0);  // masked stays exactly 0
    CHECK(w(0, 0, 2, 1) == 0.3333);
    CHECK(w(0, 1, 2, 2) == 1.0);
    CHECK(w(1, 1, 2, 0) == 0.3333);
    CHECK(to_json(j.as_array()[0].as_array()[0].as_array()[2]) == "[0.3333,0.3333,0.3333]");  // short in the page
    CHECK_THROWS_AS(explorer::attention_json({eye}), ShapeError);                        // [T, T], not [H, T, T]
    CHECK_THROWS_AS(explorer::attention_json({ones({1, 2, 3})}), ShapeError);              // not square
}

TEST_CASE("embedded JSON cannot end its script element and parses back unchanged", "[phase3][explorer]") {
    Json data = Json::object();
    data["tokens"] = Json::Array{Json("<bos>"), Json("</script><script>alert(1)</script>"), Json("<!--")};
    const std::string text = explorer::script_safe_json(data);
    CHECK(text.find('<') == std::string::npos);
    CHECK(parse_json(text) == data);
}

TEST_CASE("render_page fills each marker once and checks the template", "[phase3][explorer]") {
    Json data = Json::object();
    data["note"] = "/*@SCRIPT@*/ @DATA@";  // marker text inside the data is data, not a marker
    const std::string page = explorer::render_page(
        data, explorer::page_in(write_template("<style>/*@STYLE@*/</style><script id=d>@DATA@</script><script>/*@SCRIPT@*/</script>")));
    CHECK(page == "<style>b{}</style><script id=d>{\"note\":\"/*@SCRIPT@*/ @DATA@\"}</script><script>m=1;\ng=1;\nx=1;</script>");  // model.js, gradients.js, explorer.js

    CHECK_THROWS_AS(explorer::render_page(data, explorer::page_in(write_template("/*@STYLE@*/ /*@SCRIPT@*/"))), ValueError);  // no @DATA@
    CHECK_THROWS_AS(explorer::render_page(data, explorer::page_in(write_template("/*@STYLE@*/ /*@SCRIPT@*/ @DATA@ @DATA@"))), ValueError);
    CHECK_THROWS_AS(explorer::render_page(data, explorer::page_in(write_template("/*@STYLE@*/ /*@SCRIPT@*/ @DATA@", "b{}", "s='</script>'"))),
                    ValueError);
    CHECK_THROWS_AS(explorer::page_in("/nonexistent/explorer"), IOError);
}

TEST_CASE("the real template renders to a page with the data and no markers left", "[phase3][explorer]") {
    Json data = Json::object();
    data["decimals"] = explorer::kDecimals;
    const std::string page = explorer::render_page(data);
    CHECK(page.find("<script type=\"application/json\" id=\"attention-data\">{\"decimals\":4}</script>") != std::string::npos);
    for (const char* marker : {"/*@STYLE@*/", "/*@SCRIPT@*/", "@DATA@"}) CHECK(page.find(marker) == std::string::npos);
    CHECK(page.find("<div id=\"error\" role=\"alert\"></div>") != std::string::npos);  // what the browser test reads
    // What the programs carry is the tree's files as they are now (make rebuilds it when one changes).
    const explorer::PageFiles carried = explorer::compiled_in_page(), tree = explorer::page_in(ATTNLAB_SOURCE_DIR "/explorer");
    CHECK(carried.html == tree.html);
    CHECK(carried.css == tree.css);
    CHECK(carried.js == tree.js);
}
