// raster.hpp — the raster back end: a Figure rendered to an RGB image.
//
// Shapes go through geometry.hpp (the same arrow heads and dashes the SVG gets)
// and are filled anti-aliased by Canvas; text is blitted from the project's bitmap
// font at whole-pixel positions so it stays crisp. Left out: sub-pixel text
// positioning, super-sampling of the whole image. To support a new primitive, add
// a draw overload in raster.cpp.
#pragma once
#include "plots/image.hpp"
#include "plots/scene.hpp"

namespace attnlab::plots {

// Throws ValueError if the figure's size is not a valid image size.
Image render_raster(const Figure& figure);

}  // namespace attnlab::plots
