// reference_mode.hpp — a test's switch for reference mode (tensor/reference.hpp), restored on exit.
#pragma once
#include "tensor/reference.hpp"

namespace attnlab::testing {

class ReferenceMode {
public:
    explicit ReferenceMode(bool on) : prev_(reference_mode()) { set_reference_mode(on); }
    ~ReferenceMode() { set_reference_mode(prev_); }
    ReferenceMode(const ReferenceMode&) = delete;
    ReferenceMode& operator=(const ReferenceMode&) = delete;

private:
    bool prev_;
};

}  // namespace attnlab::testing
