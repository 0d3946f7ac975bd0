// loss_figure.hpp — a run's loss curve as a figure: the training loss of every step and the
// validation loss of every evaluation, for one run (written beside its loss CSV) or for
// several on one chart (`tinygpt compare`).
//
// Each run gets one colour: its training loss dashed without markers (one noisy point per
// step), its validation loss solid with a marker per evaluation (a single run's validation
// loss gets a second colour, so that it stands out of the training noise). Left out: smoothing (the
// CSV holds every step for whoever wants it) and log axes (losses span less than a decade).
#pragma once
#include <string>
#include <vector>

#include "plots/scene.hpp"
#include "training/train.hpp"

namespace attnlab::lab {

struct NamedCurve {
    std::string name;  // "A", "causal_model": prefixes the legend ("A train", "A validation")
    std::vector<TrainPoint> curve;
};

// ValueError naming the run if a curve is empty; the validation series is left out of a run
// whose curve has no evaluation.
plots::Figure loss_figure(const std::vector<NamedCurve>& runs, const std::string& title);

// Beside a checkpoint: "x.safetensors" -> "x.loss" (x.loss.svg and x.loss.png).
std::string loss_figure_stem(const std::string& checkpoint);

}  // namespace attnlab::lab
