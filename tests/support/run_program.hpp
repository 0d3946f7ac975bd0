// run_program.hpp — run a built program as a child process and capture what it says,
// for tests of command-line tools (exit status + message, the way a user meets them).
//
// The child gets argv as given (no shell), stdin from /dev/null, and its stdout and
// stderr captured together. A child still running after `timeout_s` is killed and
// reported as timed_out, so a tool that hangs fails its test instead of hanging it.
#pragma once
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace attnlab::testing {

// The directory of the programs built with the same configuration as this test binary.
#ifndef ATTNLAB_BUILD_DIR
#error "ATTNLAB_BUILD_DIR must name the build directory (the Makefile defines it)"
#endif
inline std::string program_path(const std::string& name) { return std::string(ATTNLAB_BUILD_DIR) + "/" + name; }

struct ProgramRun {
    int exit_code = -1;  // the status passed to exit(); -1 if killed by a signal
    int signal = 0;      // the signal that ended it, if any
    bool timed_out = false;
    std::string output;  // stdout and stderr, interleaved as written
};

// memory_limit_bytes > 0 caps the child's address space (RLIMIT_AS): an allocation past
// it fails, as it would on a smaller machine. Not under ASan, whose shadow memory needs more.
// A non-empty `cwd` is the child's working directory, so that a program's default outputs
// ("out/...") land in a scratch directory (argv[0] must then be an absolute path).
inline ProgramRun run_program(const std::vector<std::string>& argv, double timeout_s = 60,
                              std::uint64_t memory_limit_bytes = 0, const std::string& cwd = "") {
    std::vector<char*> args;  // built before fork: the child may not allocate
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int pipe_fd[2];
    if (::pipe(pipe_fd) != 0) throw std::runtime_error("run_program: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("run_program: fork failed");
    if (pid == 0) {  // child: only async-signal-safe calls until exec
        const int null_fd = ::open("/dev/null", O_RDONLY);
        ::dup2(null_fd, STDIN_FILENO);
        ::dup2(pipe_fd[1], STDOUT_FILENO);
        ::dup2(pipe_fd[1], STDERR_FILENO);
        ::close(pipe_fd[0]);
        if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
        if (memory_limit_bytes > 0) {
            const rlimit limit{memory_limit_bytes, memory_limit_bytes};
            ::setrlimit(RLIMIT_AS, &limit);
        }
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    ::close(pipe_fd[1]);
    ProgramRun run;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buf[4096];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            run.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd p{pipe_fd[0], POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        const ssize_t n = ::read(pipe_fd[0], buf, sizeof buf);
        if (n <= 0) break;  // EOF: the child closed its output (it has exited, or is about to)
        run.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipe_fd[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
    return run;
}

}  // namespace attnlab::testing
