// fileio.cpp — see fileio.hpp. POSIX calls throughout: the guarantees above are
// about file descriptors, flags and fsync, which iostreams do not expose.
#include "io/fileio.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <signal.h>
#include <sys/file.h>
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

// The temporary prefix of <name> written by process pid: ".<name>.tmp-<pid>-".
std::string temp_prefix(const std::string& name, long pid) { return "." + name + ".tmp-" + std::to_string(pid) + "-"; }

// Removes ".<name>.tmp-<pid>-*" in dir whose pid names no living process. Temporaries of
// another naming, or of a process that is still there (even one we may not signal:
// EPERM), are left alone.
void remove_stale_temporaries(const std::filesystem::path& dir, const std::string& name) {
    const std::string start = "." + name + ".tmp-";
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string file = it->path().filename().string();
        if (!file.starts_with(start)) continue;
        const std::string rest = file.substr(start.size());
        const std::size_t dash = rest.find('-');
        if (dash == 0 || dash == std::string::npos || dash > 9 ||
            rest.find_first_not_of("0123456789") != dash)
            continue;
        const long pid = std::stol(rest.substr(0, dash));
        if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
    }
}

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

    // 2. What killed writers left.
    remove_stale_temporaries(dir, target.filename().string());

    // 3. A fresh temporary: O_EXCL fails on anything already there (a symlink included),
    //    O_NOFOLLOW says so twice, and the random suffix cannot be planted in advance.
    std::random_device entropy;
    std::string tmp;
    Fd f;
    for (int attempt = 0; attempt < 100 && f.fd < 0; ++attempt) {
        char suffix[17];
        std::snprintf(suffix, sizeof suffix, "%08x%08x", entropy(), entropy());
        tmp = (dir / (temp_prefix(target.filename().string(), static_cast<long>(::getpid())) + suffix)).string();
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

    // 4. Publish, then make the rename durable.
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename failed");
    Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    // EINVAL: the file system cannot sync a directory (some network ones); the rename stands.
    if (d.fd < 0 || (::fsync(d.fd) != 0 && errno != EINVAL))
        throw IOError(who + ": written, but syncing directory '" + dir.string() + "' failed: " + errno_text());
}

std::string file_kind(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return "";
    if (!S_ISREG(st.st_mode)) return kind_of(st.st_mode);
    Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)};
    if (f.fd < 0) return "an unreadable file";
    std::string head(4096, '\0');
    const ssize_t n = ::read(f.fd, head.data(), head.size());
    head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (head.starts_with("\x93NUMPY")) return "a .npy array";
    if (head.starts_with("\x89PNG\r\n\x1a\n")) return "a PNG image";
    if (head.starts_with("GIF87a") || head.starts_with("GIF89a")) return "a GIF image";
    // safetensors: an 8-byte little-endian header length, then a JSON object.
    if (head.size() > 9 && head[8] == '{') {
        std::uint64_t n_header = 0;
        for (int i = 7; i >= 0; --i) n_header = n_header << 8 | static_cast<unsigned char>(head[static_cast<std::size_t>(i)]);
        if (n_header >= 2 && n_header <= static_cast<std::uint64_t>(st.st_size) - 8) {
            // The format name sits in the header's metadata, which may follow a long vocabulary.
            std::string header(static_cast<std::size_t>(std::min<std::uint64_t>(n_header, 1 << 24)), '\0');
            const ssize_t got = ::pread(f.fd, header.data(), header.size(), 8);
            header.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
            if (header.find("\"attnlab-checkpoint\"") != std::string::npos) return "an attnlab checkpoint";
            if (header.find("\"attnlab-seq2seq\"") != std::string::npos) return "an attnlab seq2seq checkpoint";
            return "a safetensors file";
        }
    }
    if (head.find('\0') != std::string::npos) return "binary data";
    return "text";
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    std::error_code ec;
    const auto ca = std::filesystem::weakly_canonical(a, ec), cb = std::filesystem::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

void check_output(const std::string& who, const std::string& path, const std::string& kind, bool overwrite,
                  const std::vector<std::string>& inputs) {
    const std::string named = who + " '" + path + "'";
    if (path.empty()) throw IOError(who + ": an empty path names no file");
    if (path.back() == '/') throw IOError(named + " names a directory, not a file");
    for (const std::string& in : inputs)
        if (!in.empty() && same_file(path, in)) throw IOError(named + " is '" + in + "', which this run reads; give another path");
    const std::string found = file_kind(path);
    if (found.empty()) return;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw IOError(named + " is " + found + "; only a regular file is ever replaced, so it is left alone");
    if (found != kind && !overwrite)
        throw IOError(named + " exists and holds " + found + ", not " + kind +
                      "; it is left alone (give another path, or --overwrite to replace it)");
}

OutputLock::OutputLock(const std::string& path, const std::string& holder) : lock_path_(path + ".lock") {
    const std::string who = "'" + path + "'";
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(lock_path_).has_parent_path() ? fs::path(lock_path_).parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    // Open, lock, then check that the locked file is still the one at lock_path_: a holder
    // that was releasing may have removed it between our open and our flock.
    for (int attempt = 0; attempt < 100; ++attempt) {
        Fd f{::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666)};
        if (f.fd < 0) throw IOError(who + ": cannot open its lock file '" + lock_path_ + "': " + errno_text());
        if (::flock(f.fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK) throw IOError(who + ": cannot lock '" + lock_path_ + "': " + errno_text());
            std::string other(256, '\0');
            const ssize_t n = ::pread(f.fd, other.data(), other.size(), 0);
            other.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
            while (!other.empty() && (other.back() == '\n' || other.back() == '\0')) other.pop_back();
            throw IOError(who + " is being written by another program (" + (other.empty() ? "holder unknown" : other) +
                          ", holding '" + lock_path_ + "'); wait for it to finish or give another path");
        }
        struct stat held {}, now {};
        if (::fstat(f.fd, &held) != 0 || ::stat(lock_path_.c_str(), &now) != 0 || held.st_ino != now.st_ino ||
            held.st_dev != now.st_dev)
            continue;  // removed under us: lock the new one
        const std::string text = holder + ", pid " + std::to_string(::getpid()) + "\n";
        if (::ftruncate(f.fd, 0) != 0 || ::pwrite(f.fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
            throw IOError(who + ": cannot write its lock file '" + lock_path_ + "': " + errno_text());
        fd_ = f.fd;
        f.fd = -1;
        return;
    }
    throw IOError(who + ": its lock file '" + lock_path_ + "' keeps being replaced");
}

OutputLock::~OutputLock() {
    if (fd_ < 0) return;
    ::unlink(lock_path_.c_str());  // while still held: a waiting opener then sees another inode and retries
    ::close(fd_);
}

}  // namespace attnlab
