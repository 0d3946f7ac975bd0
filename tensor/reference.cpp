// reference.cpp — the reference-mode switch (see reference.hpp).
#include "tensor/reference.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "tensor/error.hpp"

namespace attnlab {

namespace {

// A build without optimisation is one for stepping through in gdb: it reads the formulas.
#ifdef __OPTIMIZE__
constexpr bool kBuildDefault = false;
#else
constexpr bool kBuildDefault = true;
#endif

std::atomic<bool>& flag() {
    static std::atomic<bool> on{parse_reference_mode(std::getenv("ATTNLAB_REFERENCE"))};
    return on;
}

}  // namespace

bool parse_reference_mode(const char* text) {
    if (!text || !*text) return kBuildDefault;
    const std::string v = text;
    if (v == "1") return true;
    if (v == "0") return false;
    throw ValueError("ATTNLAB_REFERENCE: expected 1 (the readable reference code) or 0 (the fast kernels), got '" + v + "'");
}

bool reference_mode() { return flag().load(std::memory_order_relaxed); }
void set_reference_mode(bool on) { flag().store(on); }

}  // namespace attnlab
