// fileio.cpp — see fileio.hpp. POSIX calls throughout: the guarantees above are
// about file descriptors, flags and fsync, which iostreams do not expose.
#include "io/fileio.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor/error.hpp"

namespace attnlab {

namespace {

// What a non-regular file is, for messages: "a directory", "a FIFO", ...
const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string errno_text() { return std::strerror(errno); }

// Closes a descriptor when it goes out of scope (every throw below included).
struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

std::string read_file(const std::string& path, std::size_t max_bytes) {
    const std::string who = "read_file: '" + path + "'";
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
    if (f.fd < 0) throw IOError(who + ": cannot open: " + errno_text());
    struct stat st {};
    if (::fstat(f.fd, &st) != 0) throw IOError(who + ": cannot stat: " + errno_text());
    if (!S_ISREG(st.st_mode)) throw IOError(who + " is " + kind_of(st.st_mode) + ", not a regular file");
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
        throw IOError(who + " is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                      std::to_string(max_bytes));
    // Read to EOF, not st_size bytes: /proc files report 0 and still hold text.
    std::string bytes;
    bytes.reserve(static_cast<std::size_t>(st.st_size));
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(f.fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw IOError(who + ": read failed: " + errno_text());
        if (n == 0) break;
        if (bytes.size() + static_cast<std::size_t>(n) > max_bytes)
            throw IOError(who + " holds more than the limit of " + std::to_string(max_bytes) + " bytes");
        bytes.append(chunk, static_cast<std::size_t>(n));
    }
    return bytes;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
    namespace fs = std::filesystem;
    const std::string who = "write_file_atomic: '" + path + "'";
    const fs::path target(path);
    if (path.empty() || !target.has_filename()) throw IOError(who + " does not name a file");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw IOError(who + ": cannot create directory '" + dir.string() + "': " + ec.message());

    // 1. Only a regular file may be replaced (lstat: a symlink is judged itself, not its target).
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (!S_ISREG(st.st_mode))
            throw IOError(who + " is " + kind_of(st.st_mode) + "; refusing to replace it (only regular files are)");
    } else if (errno != ENOENT) {
        throw IOError(who + ": cannot stat: " + errno_text());
    }

    // 2. A fresh temporary: O_EXCL fails on anything already there (a symlink included),
    //    O_NOFOLLOW says so twice, and the random name cannot be planted in advance.
    std::random_device entropy;
    std::string tmp;
    Fd f;
    for (int attempt = 0; attempt < 100 && f.fd < 0; ++attempt) {
        char suffix[17];
        std::snprintf(suffix, sizeof suffix, "%08x%08x", entropy(), entropy());
        tmp = (dir / ("." + target.filename().string() + ".tmp-" + suffix)).string();
        f.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (f.fd < 0 && errno != EEXIST) throw IOError(who + ": cannot create a temporary file in '" +
                                                       dir.string() + "': " + errno_text());
    }
    if (f.fd < 0) throw IOError(who + ": no free temporary name in '" + dir.string() + "'");

    // From here on every failure removes the temporary.
    const auto fail = [&](const std::string& what) {
        const std::string reason = errno_text();
        ::unlink(tmp.c_str());
        throw IOError(who + ": " + what + ": " + reason);
    };
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(f.fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("write failed");
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(f.fd) != 0) fail("fsync failed");
    const int fd = f.fd;
    f.fd = -1;
    if (::close(fd) != 0) fail("close failed");

    // 3. Publish, then make the rename durable.
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed");
    Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    // EINVAL: the file system cannot sync a directory (some network ones); the rename stands.
    if (d.fd < 0 || (::fsync(d.fd) != 0 && errno != EINVAL))
        throw IOError(who + ": written, but syncing directory '" + dir.string() + "' failed: " + errno_text());
}

}  // namespace attnlab
