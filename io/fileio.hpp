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
//   1. <path> must name a file and be missing or a regular file: an empty path, a
//      symbolic link, FIFO, device or directory there is refused (as root, writing
//      "/dev/null" would otherwise replace the device with a regular file);
//   2. temporaries that a killed writer left beside <path> are removed: their names
//      carry the writer's pid, and only those of processes that no longer exist go
//      (kill(pid, 0) fails with ESRCH), so a writer still running keeps its own;
//   3. the bytes go to a new temporary ".<name>.tmp-<pid>-XXXXXXXX" in the same
//      directory, created with O_CREAT|O_EXCL|O_NOFOLLOW under a random suffix, so a
//      symlink planted at a guessable name cannot redirect the write;
//   4. the temporary is fsync'ed and renamed over <path>, and the directory is
//      fsync'ed so the rename itself survives a power cut.
// rename(2) is atomic on POSIX file systems: a reader (or a crash) sees the old
// file or the whole new one, never half of it. Every failure removes the temporary
// and throws IOError naming <path>. Only SIGKILL or a power cut between steps 3
// and 4 can leave a temporary behind, and the next write to <path> removes it.
// Parent directories are created as needed.
//
// What a program may write over is decided before it computes anything, by one check
// (check_output): an output never replaces a file of another kind (an .npy over a
// checkpoint) unless the user says --overwrite, and never a file the program reads.
// Whether a checkpoint belongs to another run is the trainer's question (it alone can
// compare runs); it asks it with the same --overwrite. A program that writes one file
// for a long time holds an OutputLock on it, so a second writer stops at once.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// Reads the whole file; throws IOError naming the path if it is missing, not a
// regular file, unreadable, or larger than max_bytes.
std::string read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 32);

// Writes bytes to path atomically (see above); throws IOError naming the path on failure.
void write_file_atomic(const std::string& path, std::string_view bytes);

// What a file holds, judged by its first bytes, for messages and for check_output:
// "an attnlab checkpoint", "a safetensors file", "a .npy array", "a PNG image", "a GIF
// image", "text" (valid UTF-8 without NUL bytes), or "binary data"; "" if it is missing.
std::string file_kind(const std::string& path);

// The checks an output passes before anything is computed; throws IOError starting with
// `who` (the flag, "--dump-logits") and naming the path:
//   - the path is empty or names a directory ("out/"), or something that is not a regular file;
//   - the path is one of `inputs` (the same file by another name included);
//   - the file exists and file_kind() is not `kind` (e.g. "a .npy array"), unless overwrite.
void check_output(const std::string& who, const std::string& path, const std::string& kind, bool overwrite = false,
                  const std::vector<std::string>& inputs = {});

// Whether a and b name one existing file (the same inode), or one path once normalised.
bool same_file(const std::string& a, const std::string& b);

// An advisory lock (flock) on "<path>.lock", held while the object lives; the lock file
// holds the holder's pid and command and is removed on release. A second OutputLock on
// the same path, in this process or another, throws IOError naming the holder at once
// rather than waiting. A holder killed with SIGKILL releases the lock (the kernel drops
// flocks of dead processes); the stale file it leaves is taken over by the next holder.
class OutputLock {
public:
    OutputLock(const std::string& path, const std::string& holder);
    ~OutputLock();
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;
    const std::string& lock_path() const { return lock_path_; }

private:
    std::string lock_path_;
    int fd_ = -1;
};

}  // namespace attnlab
