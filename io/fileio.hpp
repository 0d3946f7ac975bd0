// fileio.hpp — whole-file reads with a size limit, and atomic writes.
//
// Files we read are untrusted. read_file opens without blocking and checks what
// it opened before reading a byte: a directory, a FIFO, a device or a socket is
// refused with an IOError naming the path (a FIFO would otherwise block forever
// waiting for a writer). It then reads up to EOF rather than trusting the size
// the file system reports, because /proc files say 0 bytes and hold text.
//
// Every file attnlab writes (figures, .npy, checkpoints, JSON, CSV, HTML) goes
// through write_file_atomic:
//   1. <path> must be missing or a regular file: a symbolic link, FIFO, device or
//      directory there is refused (as root, writing "/dev/null" would otherwise
//      replace the device with a regular file);
//   2. the bytes go to a new temporary ".<name>.tmp-XXXXXXXX" in the same directory,
//      created with O_CREAT|O_EXCL|O_NOFOLLOW under a random name, so a symlink
//      planted at a guessable name cannot redirect the write;
//   3. the temporary is fsync'ed and renamed over <path>, and the directory is
//      fsync'ed so the rename itself survives a power cut.
// rename(2) is atomic on POSIX file systems: a reader (or a crash) sees the old
// file or the whole new one, never half of it. Every failure removes the temporary
// and throws IOError naming <path>. Only SIGKILL or a power cut between steps 2
// and 3 can leave a ".<name>.tmp-…" file behind; <path> itself is never damaged.
// Parent directories are created as needed.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

// Reads the whole file; throws IOError naming the path if it is missing, not a
// regular file, unreadable, or larger than max_bytes.
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 32);

// Writes bytes to path atomically (see above); throws IOError naming the path on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

}  // namespace attnlab
