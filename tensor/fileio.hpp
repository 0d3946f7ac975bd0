// fileio.hpp — whole-file reads with a size limit, and atomic writes.
//
// Every file attnlab writes (figures, .npy, checkpoints, JSON) goes through
// write_file_atomic: the bytes go to "<path>.tmp.<pid>", are flushed, and the
// temporary is renamed over <path>. rename(2) is atomic on POSIX file systems,
// so a reader (or a crash) sees either the old file or the whole new one, never
// half of it. Parent directories are created as needed.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

// Reads the whole file; throws IOError naming the path if it is missing,
// unreadable, or larger than max_bytes (files we read are validated before use).
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 32);

// Writes bytes to path atomically (see above); throws IOError on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace attnlab
