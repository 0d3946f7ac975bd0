// assets.cpp — see assets.hpp.
#include "assets/assets.hpp"

#include <utility>

#include "tensor/error.hpp"

namespace attnlab::assets {

namespace {

// {"explorer/model.js", R"asset(...)asset"}, ...: written by the Makefile from the files themselves.
constexpr std::pair<std::string_view, std::string_view> kFiles[] = {
#include "assets.inc"
};

}  // namespace

std::string_view file(std::string_view path) {
    for (const auto& [name, bytes] : kFiles)
        if (name == path) return bytes;
    std::string known;
    for (const auto& f : kFiles) known += (known.empty() ? "" : ", ") + std::string(f.first);
    throw ValueError("assets::file: '" + std::string(path) + "' is not compiled in (the programs carry " + known + ")");
}

std::vector<std::string_view> paths() {
    std::vector<std::string_view> out;
    for (const auto& f : kFiles) out.push_back(f.first);
    return out;
}

}  // namespace attnlab::assets
