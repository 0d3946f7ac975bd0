// test_mask_spec.cpp — --mask's texts: each good one becomes the settings it names, each bad
// one is refused with the flag and the text in the message.
#include <catch2/catch.hpp>

#include "tensor/error.hpp"
#include "training/mask_spec.hpp"

using namespace attnlab;
using namespace attnlab::lab;

TEST_CASE("parse_mask reads none, causal, local:W and strided:S", "[training][mask_spec]") {
    using K = MaskSpec::Kind;
    struct Case {
        const char* text;
        K kind;
        std::int64_t width;
        const char* name;
    };
    for (const Case& c : {Case{"none", K::none, 0, "no mask"}, Case{"causal", K::causal, 0, "causal"},
                          Case{"local:2", K::local, 2, "local +-2"}, Case{"strided:8192", K::strided, 8192, "strided 8192"}}) {
        const MaskSpec m = parse_mask(c.text);
        INFO(c.text);
        CHECK(m.kind == c.kind);
        CHECK(m.width == c.width);
        CHECK(m.name() == c.name);
    }
}

TEST_CASE("parse_mask refuses a bad text, naming the flag and the text", "[training][mask_spec]") {
    CHECK_THROWS_WITH(parse_mask("local:0"), "--mask 'local:0': W of local:W needs an integer in [1, 8192]");
    CHECK_THROWS_WITH(parse_mask("strided:8193"), "--mask 'strided:8193': S of strided:S needs an integer in [1, 8192]");
    CHECK_THROWS_WITH(parse_mask("local:"), Catch::Contains("'local:'"));
    CHECK_THROWS_WITH(parse_mask("local:2x"), Catch::Contains("'local:2x'"));
    CHECK_THROWS_WITH(parse_mask("strided:-1"), Catch::Contains("'strided:-1'"));
    CHECK_THROWS_WITH(parse_mask("Causal"), "--mask 'Causal' is not a mask: none, causal, local:W or strided:S");
    CHECK_THROWS_WITH(parse_mask("", "--masks"), "--masks '' is not a mask: none, causal, local:W or strided:S");
    CHECK_THROWS_AS(parse_mask("local:1.5"), ValueError);
}

TEST_CASE("MaskSpec::apply sets causal_mask, window and stride; local keeps the task's causal mask", "[training][mask_spec]") {
    TrainConfig c;
    c.task = Task::causal, c.causal_mask = true, c.window = 3, c.stride = 4;
    parse_mask("local:5").apply(c);
    CHECK((c.causal_mask && c.window == 5 && c.stride == 0));
    parse_mask("strided:2").apply(c);
    CHECK((c.causal_mask && c.window == 0 && c.stride == 2));
    parse_mask("none").apply(c);
    CHECK((!c.causal_mask && c.window == 0 && c.stride == 0));
    parse_mask("causal").apply(c);
    CHECK(c.causal_mask);

    TrainConfig mlm;
    mlm.task = Task::multi_head, mlm.causal_mask = false;
    parse_mask("local:1").apply(mlm);
    CHECK((!mlm.causal_mask && mlm.window == 1));
    CHECK_THROWS_WITH(parse_mask("causal").apply(mlm), Catch::Contains("--mask causal: multi-head") &&
                                                           Catch::Contains("the causal mask is for next-token models"));
}
