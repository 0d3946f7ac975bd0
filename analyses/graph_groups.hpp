// graph_groups.hpp — folding an autograd graph (autograd/graph.hpp) into labelled groups,
// so that a whole model's graph fits one readable picture (analyses/graph_view.hpp draws it).
//
// The caller names a group for each node ("blocks.0.attn", or "" to leave the node on its
// own); group_graph merges the nodes of each name into one node and keeps one edge per
// pair of groups that some edge of the full graph joins (edges inside a group vanish).
// Nothing is invented: every grouped edge stands for at least one full edge, and a group
// keeps the list of its members, so a drawing can say which of backward()'s steps it spans.
// Left out: nested groups (one level: a node is in one group or alone).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "autograd/graph.hpp"

namespace attnlab::lab {

struct GraphGroup {
    std::string label;                 // the group's name; "" for a node left on its own
    std::vector<std::size_t> members;  // indices into the full graph's nodes, ascending
};

struct GroupedGraph {
    Graph full;                      // the graph that was grouped
    std::vector<GraphGroup> nodes;   // every consumer before its inputs: nodes[0] holds the root
    std::vector<std::pair<std::size_t, std::size_t>> edges;  // (from, to) indices into nodes, each pair once

    // The members that feed a node outside their group (or are the root): what the group outputs.
    std::vector<std::size_t> outputs(std::size_t node) const;
    std::size_t op_count(std::size_t node) const;  // op members (a group of parameters has none)
};

// group_of: one entry per node of g. ValueError if the sizes differ, or if the grouping
// would make a cycle (a group that both feeds and consumes another), naming the groups.
GroupedGraph group_graph(const Graph& g, const std::vector<std::string>& group_of);

// The nodes `keep` and every node an edge joins to one of them; the rest dropped: one part
// of a large graph with what flows into and out of it. Order and edges as in g.
GroupedGraph neighbourhood(const GroupedGraph& g, const std::vector<std::size_t>& keep);

// Every node on its own: the full graph in grouped form, as draw_graph draws it.
GroupedGraph ungrouped(const Graph& g);

// "3-7, 9, 12-13": ascending steps as ranges, so a label says which steps a group spans.
std::string step_ranges(std::vector<std::size_t> steps);

}  // namespace attnlab::lab
