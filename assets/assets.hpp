// assets.hpp — the files the programs read at run time, compiled into them.
//
// The explorer page's five files (explorer/explorer.html, .css, model.js, gradients.js,
// explorer.js) and the toy sentences (data/toy_sequences.txt) are read when the programs are
// built, not when they run: the Makefile writes their bytes as raw string literals into
// $(B)/gen/assets.inc, which assets.cpp compiles in. A built program therefore reads nothing
// from the source tree: copied or moved elsewhere, it writes the same pages (a test runs a
// copy of tinygpt outside the checkout). To add a file: list it in the Makefile's ASSETS.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::assets {

// The bytes of `path` (as the source tree names it: "explorer/model.js") as they were when the
// program was built. ValueError naming the path and the files there are if it is not one of them.
std::string_view file(std::string_view path);
// The paths compiled in, in the Makefile's order.
std::vector<std::string_view> paths();

}  // namespace attnlab::assets
