// catch_main.cpp — Catch2's main, compiled once so rebuilding a test file is quick.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <cstdlib>

#include "tensor/reference.hpp"

// The tests choose their mode: the fast kernels unless ATTNLAB_REFERENCE says otherwise,
// in a debug build too (whose programs default to reference mode), since many tests hold
// a fast kernel to its readable reference; tests of reference mode switch it on themselves.
static const bool kFastUnlessAsked = [] {
    if (!std::getenv("ATTNLAB_REFERENCE")) attnlab::set_reference_mode(false);
    return true;
}();
