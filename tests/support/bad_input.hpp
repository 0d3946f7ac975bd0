// bad_input.hpp — one helper for the bad-input catalogue ([bad-input] tests).
//
// A catalogue case asserts two things about a rejection: the exception's class and
// what its message names (the op, file or flag, and the offending value):
//   CHECK_THAT(thrown<IOError>([&] { load_npy(path); }), Contains(path) && Contains("too large"));
// thrown<E> returns E's message; if nothing is thrown, or something else is, it returns
// a description of that instead, which no fragment a case looks for will match.
#pragma once
#include <exception>
#include <filesystem>
#include <string>
#include <typeinfo>

namespace attnlab::testing {

// A fresh, empty directory build/test_tmp/bad_input/<name> for a case's files.
inline std::string fresh_dir(const std::string& name) {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/bad_input/" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

template <class E, class F>
std::string thrown(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("<threw another type, ") + typeid(e).name() + ": " + e.what() + ">";
    }
    return "<did not throw>";
}

}  // namespace attnlab::testing
