// test_report.cpp — lab::Table: one row definition gives the printed line, the metrics.json
// entry and the chart series, so they cannot disagree.
#include <catch2/catch.hpp>
#include <cmath>

#include "app/report.hpp"

using namespace attnlab;

TEST_CASE("a table row is printed, recorded and drawn from the same values", "[lab][report]") {
    lab::Table t({{"d_k", "d_k", 4, -1}, {"scaled", "scaled", 6, -1}, {"variance", "Var", 8, 3}, {"name", "name", 6, -1}});
    t.row({8, false, 7.9312, "a"});
    t.row({128, false, 127.5, "b"});
    t.row({128, true, 1.0049, "c"});
    CHECK(t.line({8, false, 7.9312, "a"}) == "   8     no    7.931      a");
    const Json& rows = t.json();
    REQUIRE(rows.size() == 3);
    CHECK(rows.as_array()[0].at("d_k").as_int64() == 8);
    CHECK(rows.as_array()[2].at("scaled").as_bool());
    CHECK(rows.as_array()[1].at("variance").as_double() == 127.5);  // recorded unrounded
    const auto unscaled = [](const Json& r) { return !r.at("scaled").as_bool(); };
    const plots::Series s = t.series("d_k", "variance", {.name = "unscaled", .dashed = true}, unscaled);
    CHECK(s.name == "unscaled");
    CHECK(s.dashed);
    CHECK(s.x == std::vector<double>{8, 128});
    CHECK(s.y == std::vector<double>{7.9312, 127.5});
    const Json by = t.json_by("name");
    CHECK(by.at("c").at("variance").as_double() == 1.0049);
    CHECK(by.at("c").find("name") == nullptr);
}

TEST_CASE("a row with the wrong number of values is an error naming both counts", "[lab][report]") {
    lab::Table t(std::vector<lab::Column>{{"a", "a"}, {"b", "b"}});
    CHECK_THROWS_WITH(t.row({1.0}), Catch::Contains("1 values for 2 columns"));
    CHECK(t.json().size() == 0);
}

TEST_CASE("a headline is recorded once, in declaration order, as value, caption and decimals", "[lab][report]") {
    Json m = Json::object();
    lab::headline(m, "loss", 0.5, "validation loss");
    lab::headline(m, "steps", 120, "steps", 0);
    const Json& h = m.at("headlines");
    REQUIRE(h.size() == 2);
    CHECK(h.as_object()[0].first == "loss");
    CHECK(h.at("loss").at("value").as_double() == 0.5);
    CHECK(h.at("loss").at("caption").as_string() == "validation loss");
    CHECK(h.at("loss").at("decimals").as_int64() == 3);
    CHECK(h.at("steps").at("value").as_int64() == 120);
    CHECK(h.at("steps").at("decimals").as_int64() == 0);
    CHECK_THROWS_WITH(lab::headline(m, "loss", 0.4, "again"), Catch::Contains("headline 'loss' is declared twice"));
    CHECK_THROWS_WITH(lab::headline(m, "name", "x", "text"), Catch::Contains("headline 'name'") && Catch::Contains("not a number"));
    CHECK_THROWS_WITH(lab::headline(m, "nan", std::nan(""), "nan"), Catch::Contains("headline 'nan'") && Catch::Contains("not finite"));
    CHECK(h.size() == 2);
}
