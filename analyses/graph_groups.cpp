// graph_groups.cpp — see graph_groups.hpp.
#include "analyses/graph_groups.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "tensor/error.hpp"

namespace attnlab::lab {

std::vector<std::size_t> GroupedGraph::outputs(std::size_t node) const {
    const std::vector<std::size_t>& m = nodes.at(node).members;
    auto inside = [&](std::size_t i) { return std::binary_search(m.begin(), m.end(), i); };
    std::vector<std::size_t> out;
    for (std::size_t i : m) {
        bool leaves = i == 0 && full.nodes[0].kind == GraphNodeKind::op;  // the root feeds backward() itself
        for (const GraphEdge& e : full.edges) leaves = leaves || (e.from == i && !inside(e.to));
        if (leaves) out.push_back(i);
    }
    return out;
}

std::size_t GroupedGraph::op_count(std::size_t node) const {
    std::size_t n = 0;
    for (std::size_t i : nodes.at(node).members) n += full.nodes[i].kind == GraphNodeKind::op;
    return n;
}

GroupedGraph group_graph(const Graph& g, const std::vector<std::string>& group_of) {
    if (group_of.size() != g.nodes.size())
        throw ValueError("group_graph: " + std::to_string(group_of.size()) + " group names for " +
                         std::to_string(g.nodes.size()) + " nodes");
    // 1. members: one group per distinct non-empty name, one per node left alone
    std::vector<GraphGroup> groups;
    std::vector<std::size_t> group(g.nodes.size());
    std::map<std::string, std::size_t> by_name;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const bool alone = group_of[i].empty();
        auto [it, is_new] = by_name.try_emplace(alone ? "" : group_of[i], groups.size());
        if (alone || is_new) {
            group[i] = groups.size();
            groups.push_back({group_of[i], {}});
            if (!alone) it->second = group[i];
        } else {
            group[i] = it->second;
        }
        groups[group[i]].members.push_back(i);
    }
    // 2. edges between groups, each pair once
    std::set<std::pair<std::size_t, std::size_t>> pairs;
    for (const GraphEdge& e : g.edges)
        if (group[e.from] != group[e.to]) pairs.emplace(group[e.from], group[e.to]);
    // 3. order: a group comes once all its consumers have (Kahn's algorithm from the root
    //    side); among those ready, the one holding the earliest node (backward()'s order)
    std::vector<std::size_t> waiting(groups.size(), 0);
    for (const auto& [from, to] : pairs) waiting[from] += 1;
    std::set<std::pair<std::size_t, std::size_t>> ready;  // (first member, group)
    for (std::size_t k = 0; k < groups.size(); ++k)
        if (!waiting[k]) ready.emplace(groups[k].members.front(), k);
    std::vector<std::size_t> order, position(groups.size());
    while (!ready.empty()) {
        const std::size_t k = ready.begin()->second;
        ready.erase(ready.begin());
        position[k] = order.size();
        order.push_back(k);
        for (const auto& [from, to] : pairs)
            if (to == k && --waiting[from] == 0) ready.emplace(groups[from].members.front(), from);
    }
    if (order.size() != groups.size()) {
        std::string stuck;
        for (std::size_t k = 0; k < groups.size(); ++k)
            if (waiting[k]) stuck += (stuck.empty() ? "'" : ", '") + groups[k].label + "'";
        throw ValueError("group_graph: the grouping makes a cycle: " + stuck +
                         " each feed and consume another group; split them");
    }
    GroupedGraph out{g, {}, {}};
    for (std::size_t k : order) out.nodes.push_back(std::move(groups[k]));
    for (const auto& [from, to] : pairs) out.edges.emplace_back(position[from], position[to]);
    std::sort(out.edges.begin(), out.edges.end());
    return out;
}

GroupedGraph neighbourhood(const GroupedGraph& g, const std::vector<std::size_t>& keep) {
    std::vector<bool> kept(g.nodes.size(), false);
    for (std::size_t k : keep) kept.at(k) = true;
    std::vector<bool> shown = kept;
    for (const auto& [from, to] : g.edges)
        if (kept[from] || kept[to]) shown[from] = shown[to] = true;
    GroupedGraph out{g.full, {}, {}};
    std::vector<std::size_t> position(g.nodes.size());
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
        if (shown[k]) position[k] = out.nodes.size(), out.nodes.push_back(g.nodes[k]);
    for (const auto& [from, to] : g.edges)
        if (shown[from] && shown[to] && (kept[from] || kept[to])) out.edges.emplace_back(position[from], position[to]);
    return out;
}

GroupedGraph ungrouped(const Graph& g) { return group_graph(g, std::vector<std::string>(g.nodes.size())); }

std::string step_ranges(std::vector<std::size_t> steps) {
    std::sort(steps.begin(), steps.end());
    std::string out;
    for (std::size_t i = 0; i < steps.size();) {
        std::size_t j = i;
        while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(steps[i]) + (j > i ? "-" + std::to_string(steps[j]) : "");
        i = j + 1;
    }
    return out;
}

}  // namespace attnlab::lab
