// save.cpp — see save.hpp.
#include "plots/save.hpp"

#include "plots/png.hpp"
#include "plots/raster.hpp"
#include "plots/svg.hpp"
#include "io/fileio.hpp"

namespace attnlab::plots {

void save(const Figure& figure, const std::string& path_stem) {
    save_svg(figure, path_stem + ".svg");
    save_png(figure, path_stem + ".png");
}

void save_svg(const Figure& figure, const std::string& path) { write_file_atomic(path, render_svg(figure)); }

void save_png(const Figure& figure, const std::string& path) {
    write_file_atomic(path, encode_png(render_raster(figure)));
}

void save_ppm(const Figure& figure, const std::string& path) {
    write_file_atomic(path, encode_ppm(render_raster(figure)));
}

void save_gif(const std::vector<Figure>& frames, const std::string& path, int delay_cs) {
    std::vector<GifFrame> rendered;
    rendered.reserve(frames.size());
    for (const Figure& f : frames) rendered.push_back({render_raster(f), delay_cs});
    write_file_atomic(path, encode_gif(rendered));
}

}  // namespace attnlab::plots
