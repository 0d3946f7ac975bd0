// fileio.cpp — see fileio.hpp.
#include "tensor/fileio.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tensor/error.hpp"

namespace attnlab {

std::string read_file(const std::string& path, std::size_t max_bytes) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw IOError("read_file: cannot open '" + path + "': " + std::strerror(errno));
    std::streamoff size = in.tellg();
    if (size < 0) throw IOError("read_file: cannot determine the size of '" + path + "'");
    if (static_cast<std::size_t>(size) > max_bytes)
        throw IOError("read_file: '" + path + "' is " + std::to_string(size) + " bytes, more than the limit of " +
                      std::to_string(max_bytes));
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    if (size > 0 && !in.read(bytes.data(), size)) throw IOError("read_file: short read from '" + path + "'");
    return bytes;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
    namespace fs = std::filesystem;
    fs::path target(path);
    std::error_code ec;
    if (target.has_parent_path()) {
        fs::create_directories(target.parent_path(), ec);
        if (ec) throw IOError("write_file_atomic: cannot create directory '" + target.parent_path().string() +
                              "': " + ec.message());
    }
    std::string tmp = path + ".tmp." + std::to_string(::getpid());
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) throw IOError("write_file_atomic: cannot open '" + tmp + "': " + std::strerror(errno));
    bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    ok = (std::fflush(f) == 0) && ok;
    ok = (::fsync(::fileno(f)) == 0) && ok;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
        int err = errno;
        std::remove(tmp.c_str());
        throw IOError("write_file_atomic: cannot write '" + path + "': " + std::strerror(err));
    }
}

}  // namespace attnlab
