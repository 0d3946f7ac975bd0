// test_show.cpp — what the live explorer page carries (analyses/show.hpp, explorer/explorer.hpp):
// the weights' encoding, a model's description, and how each kind of checkpoint frames a text.
// The page's forward pass itself is checked against attnlab's in Chromium by tools/browser_test.
#include <catch2/catch.hpp>
#include <filesystem>

#include "analyses/attention_gradients.hpp"
#include "explorer/explorer.hpp"
#include "analyses/show.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;

namespace {

// A checkpoint in memory: an untrained model of `config` with `vocab`, of `kind`.
nn::LoadedCheckpoint checkpoint(const nn::TransformerConfig& config, std::vector<std::string> vocab, const std::string& kind) {
    nn::LoadedCheckpoint ck;
    ck.model = std::make_unique<nn::Transformer>(config, 7);
    ck.info.kind = kind;
    ck.info.vocab = std::move(vocab);
    return ck;
}

nn::TransformerConfig small(std::int64_t vocab_size, bool causal = true) {
    return {.vocab_size = vocab_size, .d_model = 8, .n_heads = 2, .n_layers = 1, .context = 6, .causal = causal};
}

}  // namespace

TEST_CASE("base64 and float32 bytes are what the page's atob and DataView read", "[lab][show][explorer]") {
    CHECK(explorer::base64("") == "");
    CHECK(explorer::base64("M") == "TQ==");  // RFC 4648's examples: padding for 1 and 2 trailing bytes
    CHECK(explorer::base64("Ma") == "TWE=");
    CHECK(explorer::base64("Man") == "TWFu");
    CHECK(explorer::base64("foobar") == "Zm9vYmFy");
    CHECK(explorer::base64(std::string("\xff\xfe\x00", 3)) == "//4A");
    CHECK(explorer::float32_bytes({1.0f, -2.5f}) == std::string("\x00\x00\x80\x3f\x00\x00\x20\xc0", 8));  // little-endian
}

TEST_CASE("explorer_model carries a checkpoint's config, vocabulary and every weight", "[lab][show][explorer]") {
    const nn::LoadedCheckpoint ck = checkpoint(small(6), {"<pad>", "<bos>", "<eos>", "[MASK]", "cat", "dog"}, "causal");
    const Json m = lab::explorer_model(ck, {"causal", "tiny", "a tiny model", "tiny.safetensors", lab::prompt_framing(ck)});
    CHECK(m.at("n_layers").as_int64() == 1);
    CHECK(m.at("n_heads").as_int64() == 2);
    CHECK(m.at("config").at("scale").as_double() == Approx(0.5));  // 1/√d_k, d_k = 8 / 2
    CHECK(m.at("vocab").size() == 6);
    CHECK(m.at("tokenizer").at("unit").as_string() == "word");
    CHECK(m.at("tokenizer").at("prefix").as_array() == Json::Array{Json("<bos>")});  // the toy grammar's rows open with <bos>
    // Every parameter, in named_parameters() order, each value as 4 bytes: 5.33 base64 characters a weight.
    const auto params = ck.model->named_parameters();
    REQUIRE(m.at("tensors").size() == params.size());
    CHECK(m.at("tensors").as_array()[0].at("name").as_string() == "tok_emb.weight");
    CHECK(m.at("tensors").as_array()[0].at("shape").as_array() == Json::Array{Json(6), Json(8)});
    const std::size_t bytes = 4 * static_cast<std::size_t>(ck.model->parameter_count());
    CHECK(m.at("weights").as_string().size() == (bytes + 2) / 3 * 4);
    // The first weight, tok_emb[0][0], is the first 4 bytes.
    const float first = ck.model->tok_emb.weight.contiguous().to_vector<float>()[0];
    CHECK(m.at("weights").as_string().substr(0, 4) == explorer::base64(explorer::float32_bytes({first})).substr(0, 4));

    const nn::LoadedCheckpoint unscaled = [] {
        nn::TransformerConfig c = small(6);
        c.scaled = false;
        return checkpoint(c, {"<pad>", "<bos>", "<eos>", "[MASK]", "cat", "dog"}, "causal");
    }();
    CHECK(lab::explorer_model(unscaled, {"u", "u", "", "u", {}}).at("config").at("scale").as_double() == 1.0);
}

TEST_CASE("explorer_model refuses a framing the vocabulary cannot spell, or a vocabulary of the wrong size", "[lab][show][explorer]") {
    const nn::LoadedCheckpoint chars = checkpoint(small(4), {"<pad>", "a", "b", " "}, "char");
    CHECK_THROWS_WITH(lab::explorer_model(chars, {"m", "m", "", "chars.safetensors", {false, {"<bos>"}, {}}}),
                      Catch::Contains("'chars.safetensors' has no token <bos>"));
    const nn::LoadedCheckpoint wrong = checkpoint(small(5), {"<pad>", "a"}, "char");
    CHECK_THROWS_WITH(lab::explorer_model(wrong, {"m", "m", "", "w.safetensors", {}}), Catch::Contains("2 vocabulary entries for vocab_size 5"));
}

TEST_CASE("prompt_framing reads a prompt as tinygpt does for each kind of checkpoint", "[lab][show][explorer]") {
    const nn::LoadedCheckpoint chars = checkpoint(small(4), {"<pad>", "a", "b", " "}, "char");
    CHECK(lab::prompt_framing(chars).chars);
    CHECK(lab::prompt_framing(chars).prefix.empty());
    nn::LoadedCheckpoint corpus = checkpoint(small(6), {"<pad>", "<bos>", "<eos>", "[MASK]", "cat", "dog"}, "causal");
    corpus.metadata["corpus"] = "notes.txt";
    CHECK_FALSE(lab::prompt_framing(corpus).chars);
    CHECK(lab::prompt_framing(corpus).prefix.empty());  // a word corpus is one stream, without <bos>
    corpus.metadata["corpus"] = "";
    CHECK(lab::prompt_framing(corpus).prefix == std::vector<std::string>{"<bos>"});
}

TEST_CASE("write_explorer with a checkpoint writes the live page for any vocabulary", "[lab][show][explorer]") {
    const std::string dir = (std::filesystem::temp_directory_path() / "attnlab_test_live_explorer").string();
    std::filesystem::remove_all(dir);
    const nn::LoadedCheckpoint chars = checkpoint(small(4, false), {"<pad>", "a", "b", " "}, "char");
    lab::AttentionOf listed{"", "ab a", {"a", "b", "_", "a"}, {}, {1, 2, 3, 1}};
    const std::string page = lab::write_explorer(chars, "chars", {listed}, dir);
    const Json data = load_json(dir + "/explorer_data.json");
    CHECK(data.at("version").as_int64() == 3);
    CHECK(data.at("sentences").as_array()[0].at("text").as_string() == "ab a");
    // the page runs the model on the vocabulary's tokens: the space itself, not its label "_"
    std::vector<std::string> tokens;
    for (const Json& t : data.at("sentences").as_array()[0].at("tokens").as_array()) tokens.push_back(t.as_string());
    CHECK(tokens == std::vector<std::string>{"a", "b", " ", "a"});
    lab::AttentionOf unlabelled = listed;
    unlabelled.ids.pop_back();
    CHECK_THROWS_WITH(lab::write_explorer(chars, "chars", {unlabelled}, dir), Catch::Contains("4 labels but 3 token ids"));
    const Json& m = data.at("models").as_array().at(0);
    CHECK(m.at("tokenizer").at("unit").as_string() == "char");
    CHECK_FALSE(m.at("causal").as_bool());
    CHECK(m.find("attention") == nullptr);  // live: the page computes the weights
    CHECK(m.find("gradients") == nullptr);  // bidirectional: no next-token loss to differentiate
    const std::string html = read_file(page);
    CHECK(html.find(m.at("weights").as_string()) != std::string::npos);
    CHECK(html.find("function forward(model, tensors, ids)") != std::string::npos);  // model.js is inlined
}

TEST_CASE("round_gradient keeps 4 significant digits, sign and magnitude", "[lab][show][explorer]") {
    CHECK(explorer::round_gradient(0.000123456) == Approx(0.0001235).epsilon(1e-12));
    CHECK(explorer::round_gradient(-12.34567) == Approx(-12.35).epsilon(1e-12));
    CHECK(explorer::round_gradient(0.0) == 0.0);
}

TEST_CASE("the page's dL/dA are lab::attention_gradients' for each listed sentence", "[lab][show][explorer][attention_gradients]") {
    const std::vector<std::string> vocab{"<pad>", "<bos>", "<eos>", "a", "b", "c"};
    nn::LoadedCheckpoint ck = checkpoint(small(6), vocab, "toy");
    for (const nn::NamedParameter& p : ck.model->named_parameters())  // away from uniform attention, so dL/dA differs by entry
        if (p.name.find("ln") == std::string::npos) copy_(p.tensor.detach(), p.tensor.detach() * 4.0);
    const std::vector<std::vector<std::string>> listed{{"<bos>", "a", "c", "b", "<eos>"}, {"<bos>", "b", "a", "<eos>"}, {"a"}};
    const Json grads = lab::explorer_gradients(ck, listed);
    REQUIRE(grads.size() == 3);
    CHECK(grads.as_array()[2].is_null());  // one token: nothing to predict
    for (std::size_t s = 0; s < 2; ++s) {
        std::vector<std::int64_t> ids;
        for (const std::string& t : listed[s]) ids.push_back(std::find(vocab.begin(), vocab.end(), t) - vocab.begin());
        const lab::AttentionGradients g = lab::attention_gradients(*ck.model, ids);
        const Json& page = grads.as_array()[s];
        CHECK(page.at("loss").as_double() == Approx(g.loss).epsilon(1e-12));
        const Json& dA = page.at("dA");  // [layer][head][query][key]
        REQUIRE(dA.size() == g.grads.size());
        const auto T = static_cast<std::int64_t>(ids.size());
        double biggest = 0;
        for (std::size_t l = 0; l < g.grads.size(); ++l)
            for (std::int64_t h = 0; h < 2; ++h)
                for (std::int64_t i = 0; i < T; ++i)
                    for (std::int64_t j = 0; j < T; ++j) {
                        const double want = g.grads[l].at({h, i, j});
                        const double got = dA.as_array()[l].as_array()[static_cast<std::size_t>(h)].as_array()[static_cast<std::size_t>(i)]
                                               .as_array()[static_cast<std::size_t>(j)].as_double();
                        INFO("sentence " << s << " layer " << l << " head " << h << " (" << i << ", " << j << ")");
                        CHECK(got == Approx(want).epsilon(5.01e-4));  // 4 significant digits: at most half a unit in the 4th
                        CHECK((got > 0) == (want > 0));
                        biggest = std::max(biggest, std::abs(got));
                    }
        CHECK(biggest > 1e-3);  // real gradients, not zeros matched by zeros
    }
    const nn::LoadedCheckpoint bidirectional = checkpoint(small(6, false), vocab, "toy");
    CHECK_THROWS_WITH(lab::explorer_gradients(bidirectional, listed), Catch::Contains("needs a causal model"));
    CHECK_THROWS_WITH(lab::explorer_gradients(ck, {{"<bos>", "zebra"}}), Catch::Contains("'zebra' is not in the model's vocabulary"));
}

TEST_CASE("show's figures: the entropy baseline counts the keys each query may see, grids wrap at 4 heads",
          "[lab][show]") {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/show_figures";
    std::filesystem::remove_all(dir);
    const std::int64_t T = 9;
    // Uniform over the keys each query may see: row i spreads over keys 0..i (causal) or all T.
    const auto weights = [&](bool causal, std::int64_t H) {
        std::vector<float> w;
        for (std::int64_t h = 0; h < H; ++h)
            for (std::int64_t i = 0; i < T; ++i)
                for (std::int64_t j = 0; j < T; ++j) w.push_back(!causal ? 1.0f / T : j <= i ? 1.0f / float(i + 1) : 0.0f);
        return from_vector(w, {H, T, T});
    };
    const auto attention = [&](bool causal, std::int64_t H) {
        lab::AttentionOf a{"test", "", {}, {weights(causal, H)}, {}};
        for (std::int64_t t = 0; t < T; ++t) a.tokens.push_back("t" + std::to_string(t));
        return a;
    };
    SECTION("causal: mean ln(i + 1) over the 9 queries, 1.42, not ln 9 = 2.20") {
        lab::draw_attention(attention(true, 2), dir + "/causal");
        const std::string svg = read_file(dir + "/causal/attention_entropy.svg");
        CHECK_THAT(svg, Catch::Contains("uniform over the keys each query may see (mean 1.42)"));
    }
    SECTION("bidirectional: every query sees all 9 keys, ln 9") {
        lab::draw_attention(attention(false, 2), dir + "/bidirectional");
        CHECK_THAT(read_file(dir + "/bidirectional/attention_entropy.svg"), Catch::Contains("uniform over all 9 keys (ln 9 = 2.20)"));
    }
    SECTION("generate --show draws the heads' average and then each head") {
        const auto stems = lab::draw_generation(attention(true, 2), 6, dir + "/generated");
        REQUIRE(stems == std::vector<std::string>{dir + "/generated/generated_layer1"});
        const std::string svg = read_file(stems[0] + ".svg");
        CHECK_THAT(svg, Catch::Contains(">heads averaged<") && Catch::Contains(">head 1<") && Catch::Contains(">head 2<"));
        CHECK_THAT(svg, Catch::Contains("-&gt; t8"));  // the last generated token's row
    }
    SECTION("8 heads wrap to 4 columns (the flow to 2,000 px): more rows, never wider") {
        lab::draw_attention(attention(true, 4), dir + "/four");
        lab::draw_attention(attention(true, 8), dir + "/eight");
        const auto size = [&](const std::string& file) {  // the SVG's width and height attributes
            const std::string svg = read_file(file);
            const auto attr = [&](const std::string& name) {
                const std::size_t at = svg.find(name + "=\"");
                return std::stod(svg.substr(at + name.size() + 2));
            };
            return std::pair{attr("width"), attr("height")};
        };
        for (const char* figure : {"attention_heads.svg", "attention_flow.svg"}) {
            INFO(figure);
            const auto four = size(dir + "/four/" + figure), eight = size(dir + "/eight/" + figure);
            CHECK(eight.first == four.first);
            CHECK(eight.second > four.second);
            CHECK(eight.first <= lab::kMaxGridWidth);
        }
        {  // the heatmaps: 4 heads are one row, 8 two
            const auto four = size(dir + "/four/attention_heads.svg"), eight = size(dir + "/eight/attention_heads.svg");
            CHECK(eight.second > 1.8 * four.second);
        }
    }
}
