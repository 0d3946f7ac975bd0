// test_sampling.cpp — temperature, top-k and top-p on fixed logits whose answer is known, and
// the distribution shown being the one nn::choose_token draws from.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>

#include "analyses/sampling.hpp"
#include "tensor/ops.hpp"

using namespace attnlab;
using namespace attnlab::lab;

namespace {

// Probabilities 0.4, 0.25, 0.15, 0.12, 0.05, 0.03 at T 1, not in id order; no cumulative sum from
// the top (0.4, 0.65, 0.8, 0.92, 0.97, 1) lands on a p the tests use, where rounding would decide.
const std::vector<double> kP{0.12, 0.4, 0.05, 0.25, 0.03, 0.15};
const std::vector<double> kCumulative{0.4, 0.65, 0.8, 0.92, 0.97, 1};

Tensor logits() {
    std::vector<double> z;
    for (double p : kP) z.push_back(std::log(p) + 3);  // a shift softmax ignores
    return from_vector(z, {6});
}

nn::GenerateOptions at(double t, std::int64_t k = 0, double p = 1) {
    nn::GenerateOptions o;
    o.temperature = t, o.top_k = k, o.top_p = p;
    return o;
}

std::int64_t argmax_of(const std::vector<double>& p) {
    return static_cast<std::int64_t>(std::max_element(p.begin(), p.end()) - p.begin());
}

double sum(const std::vector<double>& p) { return std::accumulate(p.begin(), p.end(), 0.0); }

}  // namespace

TEST_CASE("temperature keeps the argmax and raises the entropy as it grows", "[analyses][sampling]") {
    double last = -1;
    for (double t : {0.25, 0.5, 1.0, 2.0, 4.0}) {
        const std::vector<double> p = nn::next_token_distribution(logits(), at(t));
        INFO("T " << t);
        CHECK(argmax_of(p) == 1);
        CHECK(sum(p) == Approx(1).epsilon(1e-12));
        CHECK(entropy(p) > last);
        last = entropy(p);
    }
    // T 1 is softmax itself; T 0 is greedy: all the mass on the argmax.
    const std::vector<double> one = nn::next_token_distribution(logits(), at(1));
    for (std::size_t i = 0; i < kP.size(); ++i) CHECK(one[i] == Approx(kP[i]).epsilon(1e-12));
    CHECK(nn::next_token_distribution(logits(), at(0)) == std::vector<double>{0, 1, 0, 0, 0, 0});
    // As T grows the distribution tends to uniform: entropy below ln 6, and close to it.
    CHECK(entropy(nn::next_token_distribution(logits(), at(1000))) == Approx(std::log(6.0)).epsilon(1e-4));
}

TEST_CASE("top-k keeps exactly the k most likely tokens, renormalised", "[analyses][sampling]") {
    for (std::int64_t k = 1; k <= 6; ++k) {
        const std::vector<double> p = nn::next_token_distribution(logits(), at(1, k));
        std::vector<double> sorted = kP;
        std::sort(sorted.rbegin(), sorted.rend());
        const double mass = std::accumulate(sorted.begin(), sorted.begin() + k, 0.0);
        INFO("k " << k);
        CHECK(std::count_if(p.begin(), p.end(), [](double x) { return x > 0; }) == k);
        CHECK(sum(p) == Approx(1).epsilon(1e-12));
        for (std::size_t i = 0; i < kP.size(); ++i)
            CHECK(p[i] == Approx(kP[i] >= sorted[static_cast<std::size_t>(k - 1)] ? kP[i] / mass : 0.0).epsilon(1e-12));
    }
    CHECK(nn::next_token_distribution(logits(), at(1, 100)) == nn::next_token_distribution(logits(), at(1)));
}

TEST_CASE("top-p keeps the fewest most likely tokens whose mass reaches p, renormalised", "[analyses][sampling]") {
    for (const auto& [p, kept] : std::vector<std::pair<double, std::int64_t>>{
             {0.3, 1}, {0.45, 2}, {0.6, 2}, {0.7, 3}, {0.85, 4}, {0.95, 5}, {0.99, 6}, {1.0, 6}}) {
        const std::vector<double> d = nn::next_token_distribution(logits(), at(1, 0, p));
        INFO("p " << p);
        CHECK(std::count_if(d.begin(), d.end(), [](double x) { return x > 0; }) == kept);
        CHECK(sum(d) == Approx(1).epsilon(1e-12));
        CHECK(d[1] == Approx(0.4 / kCumulative[static_cast<std::size_t>(kept - 1)]).epsilon(1e-9));
    }
    // With top-k first: top-k 2 leaves 0.4 / 0.65 and 0.25 / 0.65; p 0.5 then keeps one.
    CHECK(nn::next_token_distribution(logits(), at(1, 2, 0.5)) == std::vector<double>{0, 1, 0, 0, 0, 0});
    CHECK(nn::next_token_distribution(logits(), at(1, 2, 0.7))[3] == Approx(0.25 / 0.65).epsilon(1e-12));
}

TEST_CASE("choose_token draws from the distribution sampling shows", "[analyses][sampling]") {
    const nn::GenerateOptions o = at(2, 4, 0.95);
    const std::vector<double> p = nn::next_token_distribution(logits(), o);
    Generator gen(7);
    std::map<std::int64_t, int> counts;
    const int n = 20000;
    for (int i = 0; i < n; ++i) ++counts[nn::choose_token(logits(), o, gen)];
    for (std::size_t i = 0; i < p.size(); ++i) {
        INFO("token " << i);
        // Binomial: 4 standard deviations of a share near 0.3 over 20000 draws is 0.013.
        CHECK(double(counts[static_cast<std::int64_t>(i)]) / n == Approx(p[i]).margin(0.015));
    }
}

TEST_CASE("sampling_distributions: one per setting, with entropy and the tokens kept", "[analyses][sampling]") {
    const std::vector<SampledDistribution> d = sampling_distributions(logits(), standard_sampling_settings());
    REQUIRE(d.size() == 5);
    CHECK(d[0].name == "T 0.5");
    CHECK(d[0].entropy < d[1].entropy);
    CHECK(d[1].entropy < d[2].entropy);
    CHECK(d[1].entropy == Approx(entropy(kP)).epsilon(1e-12));
    CHECK(d[3].kept == 5);
    CHECK(d[4].kept == 4);  // 0.4 + 0.25 + 0.15 + 0.12 reaches 0.9
    CHECK(total_variation(d[1].probs, kP) == Approx(0).margin(1e-12));
    CHECK(total_variation({1, 0}, {0, 1}) == 1);
    CHECK_THROWS_WITH(sampling_distributions(zeros({2, 3}), standard_sampling_settings()), Catch::Contains("[V]"));
    CHECK_THROWS_WITH(total_variation({1}, {0.5, 0.5}), Catch::Contains("total_variation"));
}
