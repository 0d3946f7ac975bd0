// label_placer.hpp — keeps labels off each other and off the shapes they label.
//
// Charts whose labels move with the view (the turning 3-D landscape) cannot lay them
// out by fixed margins: as the scene turns side-on, labels of different axes crowd
// into the same few pixels, and bars in front rise over the labels of rows behind
// them. A LabelPlacer takes labels in order of importance and keeps one only if its
// box stays kClearance away from every label kept before and from every obstacle
// (convex polygons, such as the faces of bars): a missing label reads better than
// two printed over each other. A caller with another place to offer tries again
// there (surface3d moves a token label further out along its row). Left out:
// searching for a free spot by itself, concave obstacles, turned (vertical) text
// beyond its bounding box.
#pragma once
#include <vector>

#include "plots/scene.hpp"

namespace attnlab::plots {

// Do two boxes share any area? Boxes that only touch along an edge do not.
bool overlaps(const Box& a, const Box& b);
// Does the box share any area with the convex polygon (either winding)? Separating axes.
bool overlaps(const Box& box, const std::vector<Point>& convex_polygon);

class LabelPlacer {
public:
    static constexpr double kClearance = 2;  // pixels of paper between a label and anything else

    explicit LabelPlacer(std::vector<std::vector<Point>> obstacles = {}) : obstacles_(std::move(obstacles)) {}

    bool fits(const Text& label) const;
    // How many of `labels` would not fit now (each judged alone).
    int clashes(const std::vector<Text>& labels) const;
    // Keeps the label if it fits; says whether it did.
    bool add(const Text& label);
    const std::vector<Text>& placed() const { return placed_; }

private:
    std::vector<std::vector<Point>> obstacles_;
    std::vector<Text> placed_;
    std::vector<Box> boxes_;
};

}  // namespace attnlab::plots
