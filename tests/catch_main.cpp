// catch_main.cpp — Catch2's main, compiled once so rebuilding a test file is quick.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
