// thread_count.cpp — see thread_count.hpp.
#include "tensor/thread_count.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#endif

namespace attnlab {

int default_thread_count(std::span<const CpuCore> cpus) {
    std::vector<std::pair<int, int>> cores;
    for (const CpuCore& c : cpus) cores.emplace_back(c.package, c.core);
    std::sort(cores.begin(), cores.end());
    const auto distinct = std::unique(cores.begin(), cores.end()) - cores.begin();
    return static_cast<int>(std::clamp<std::ptrdiff_t>(distinct, 1, kDefaultThreadCap));
}

namespace {

// A small non-negative integer from a sysfs file, or -1 if it cannot be read as one.
int read_topology_number(int cpu, const char* what) {
    char path[96];
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
    std::FILE* f = std::fopen(path, "r");
    if (!f) return -1;
    int value = -1;
    if (std::fscanf(f, "%d", &value) != 1 || value < 0) value = -1;
    std::fclose(f);
    return value;
}

}  // namespace

std::vector<CpuCore> usable_cpus() {
    std::vector<CpuCore> cpus;
#if defined(__linux__)
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
            if (!CPU_ISSET(cpu, &set)) continue;
            const int package = read_topology_number(cpu, "physical_package_id"), core = read_topology_number(cpu, "core_id");
            // Unreadable: a core of its own, keyed past any real core id so it never merges with one.
            if (package < 0 || core < 0) cpus.push_back({-1, cpu});
            else cpus.push_back({package, core});
        }
        if (!cpus.empty()) return cpus;
    }
#endif
    const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    for (int i = 0; i < n; ++i) cpus.push_back({-1, i});
    return cpus;
}

}  // namespace attnlab
