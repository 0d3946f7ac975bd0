// loss_figure.cpp — see loss_figure.hpp.
#include "training/loss_figure.hpp"

#include <cmath>

#include "plots/color.hpp"
#include "plots/line_chart.hpp"

namespace attnlab::lab {

plots::Figure loss_figure(const std::vector<NamedCurve>& runs, const std::string& title) {
    std::vector<plots::Series> series;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const NamedCurve& r = runs[i];
        if (r.curve.empty()) throw ValueError("loss figure: run '" + r.name + "' has no step recorded");
        const std::string prefix = r.name.empty() ? "" : r.name + " ";
        // One run: validation in a colour of its own, to stand out of the noisy training loss.
        const std::size_t val_colour = runs.size() == 1 ? 1 : i;
        plots::Series train{prefix + "train", {}, {}, plots::palette::categorical(i), false, true};
        plots::Series val{prefix + "validation", {}, {}, plots::palette::categorical(val_colour), true, false};
        for (const TrainPoint& p : r.curve) {
            train.x.push_back(static_cast<double>(p.step)), train.y.push_back(p.loss);
            if (!std::isnan(p.val_loss)) val.x.push_back(static_cast<double>(p.step)), val.y.push_back(p.val_loss);
        }
        series.push_back(std::move(train));
        if (!val.x.empty()) series.push_back(std::move(val));
    }
    return plots::line_chart(series, {.title = title, .x_title = "step", .y_title = "loss (nats per token)"});
}

std::string loss_figure_stem(const std::string& checkpoint) {
    const std::string csv = loss_csv_path(checkpoint);  // "x.loss.csv"
    return csv.substr(0, csv.size() - 4);
}

}  // namespace attnlab::lab
