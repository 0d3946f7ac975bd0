// spawn.hpp — runs one of our programs as a process, as a learner would from the shell:
// its exit status and everything it printed (stdout and stderr, interleaved).
// The programs sit beside the test binary (build/, build/asan/, ...): make test builds them.
#pragma once
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace attnlab::testing {

struct Spawned {
    int status = -1;  // exit status; -1 if it did not exit normally (a crash)
    std::string output;
};

inline std::string program_path(const std::string& name) {
    return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / name).string();
}

inline Spawned spawn(const std::string& program, const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return {};
    const std::string path = program_path(program);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1), dup2(fds[1], 2), close(fds[0]), close(fds[1]);
        std::vector<char*> argv{const_cast<char*>(path.c_str())};
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(path.c_str(), argv.data());
        _exit(127);
    }
    close(fds[1]);
    Spawned out;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.output.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    out.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

}  // namespace attnlab::testing
