// phase1_worked_examples.cpp — the bodies of phases/phase1_worked_examples.hpp, compiled once into build/libphases.a (see the Makefile).
#include "phases/phase1_worked_examples.hpp"

#include "tensor/ops.hpp"

namespace attnlab::phase {

WorkedExample unscaled_one_query_example() {
    return {"one query, three keys (unscaled)",
            tensor({{1.0, 0.0}}),
            tensor({{1.0, 0.0}, {0.0, 1.0}, {0.7, 0.7}}),
            tensor({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}}),
            1.0,
            {0.474, 0.174, 0.351},
            {0.474, 0.174, 0.351},
            {2.754, 3.754},
            {2.751, 3.750}};
}

WorkedExample scaled_four_keys_example() {
    return {"three queries, four keys (scaled by 1/sqrt(2))",
            tensor({{1, 0}, {0, 1}, {1, 1}}),
            tensor({{1, 0}, {0, 1}, {1, 1}, {0, 0}}),
            tensor({{1, 2}, {3, 4}, {5, 6}, {7, 8}}),
            std::nullopt,
            {0.335, 0.165, 0.335, 0.165},
            {0.31, 0.17, 0.31, 0.20},
            {},
            {}};
}

}  // namespace attnlab::phase
