// save.hpp — writing figures to files; the entry points chart users call.
//
// save(figure, "out/dir/name") writes name.svg and name.png side by side from the
// same figure, so the two always agree. Every write goes through
// attnlab::write_file_atomic (a crash never leaves half a file) and creates the
// directory if needed. Left out: choosing formats by extension; call the
// specific writer instead. To add a format, add a writer here that encodes with
// its encoder (png.hpp, gif.hpp, image.hpp) and writes atomically.
#pragma once
#include <string>
#include <vector>

#include "plots/gif.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

// Writes <path_stem>.svg and <path_stem>.png. Throws IOError if writing fails.
void save(const Figure& figure, const std::string& path_stem);

void save_svg(const Figure& figure, const std::string& path);
void save_png(const Figure& figure, const std::string& path);
void save_ppm(const Figure& figure, const std::string& path);
// Renders each figure (all the same size) as one frame, delay_cs hundredths of a
// second each, looping forever.
void save_gif(const std::vector<Figure>& frames, const std::string& path, int delay_cs = 8);

}  // namespace attnlab::plots
