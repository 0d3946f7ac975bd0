// browser_test.cpp — opens out/phase3/explorer.html in headless Chromium and checks
// that the page shows exactly the attention lines its data says it should.
//
//   build/browser_test [--browser chromium]  (from the repository root, after make phase3;
//                                              tools/browser_test.sh installs Chromium first)
//
// For each case, the page is loaded with a URL fragment that picks a model, sentence,
// layer, heads and token; Chromium's --dump-dom gives the DOM after the page's script
// has run. The test reads every <line class="attn"> inside <svg id="view"> (head,
// query, key as array indices from 0, and the weight as the page printed it) and
// compares the set with the lines computed here from out/phase3/explorer_data.json —
// the data the page embeds — by the page's rule: every line of a head shown whose
// weight is not 0, only the selected token's. The fragment numbers sentences, layers
// and heads from 1 and tokens from 0, as the page's labels do, while each case states
// its view in array indices: a page that took layer=2 as index 2 would fail. Each
// line's tooltip must name its head from 1 and its tokens, and some cases check the
// status line word for word. Each case also requires the page's #error element to be
// empty, except the cases that give a bad fragment, which require the page to say so.
// A control case checks that the comparison rejects the lines of a different token,
// so a checker that accepted anything would fail here. Finally a screenshot is taken
// (out/phase3/explorer_screenshot.png) for a person to look at.
//
// Prints one line per check and "browser: N passed, N failed"; exits 1 on any failure.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "lab/options.hpp"
#include "tensor/fileio.hpp"
#include "tensor/json.hpp"

using namespace attnlab;

namespace {

const std::string kPage = "out/phase3/explorer.html";
const std::string kData = "out/phase3/explorer_data.json";
const std::string kScreenshot = "out/phase3/explorer_screenshot.png";

struct Line {
    long head, from, to;  // array indices, from 0
    std::string weight;
    auto operator<=>(const Line&) const = default;
};
using Lines = std::set<Line>;

struct Case {
    std::string fragment;  // what the URL carries after '#', in the page's numbering
    std::string model;     // the view it should give, in array indices from 0
    long sentence = 0, layer = 0;
    std::vector<long> heads;  // empty = all
    char side = 0;            // 'q' query, 'k' key, 0 = no token selected
    long token = 0;
    std::string error{};   // non-empty: #error must contain this, and the default view must be shown
    std::string status{};  // non-empty: the status line must start with this
};

// Runs Chromium headless on `url` with `args` in a fresh profile; returns its stdout.
std::string chromium(const std::string& binary, const std::string& args, const std::string& url) {
    char dir_template[] = "/tmp/attnlab-chromium-XXXXXX";
    if (!mkdtemp(dir_template)) throw IOError("browser_test: cannot create a profile directory in /tmp");
    const std::string command = binary +
                                " --headless --no-sandbox --disable-gpu --disable-background-networking"
                                " --disable-component-update --disable-sync --no-first-run --user-data-dir=" +
                                dir_template + " " + args + " '" + url + "' 2>/dev/null";
    std::string output;
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char buffer[65536];
        for (std::size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
        const int status = pclose(pipe);
        std::filesystem::remove_all(dir_template);
        if (status != 0) throw IOError("browser_test: '" + binary + "' exited with status " + std::to_string(status));
    } else {
        std::filesystem::remove_all(dir_template);
        throw IOError("browser_test: cannot run '" + binary + "'");
    }
    return output;
}

// The value of attribute `name` in one tag's text, e.g. data-head="2" -> "2" ("" if absent).
std::string attribute(const std::string& tag, const std::string& name) {
    const std::string key = " " + name + "=\"";
    const std::size_t at = tag.find(key);
    if (at == std::string::npos) return "";
    const std::size_t start = at + key.size();
    return tag.substr(start, tag.find('"', start) - start);
}

// Serialized text back to what the page wrote (--dump-dom escapes these in text).
std::string unescape(std::string text) {
    for (const auto& [entity, c] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}})
        for (std::size_t at; (at = text.find(entity)) != std::string::npos;) text.replace(at, std::strlen(entity), c);
    return text;
}

// Every <line class="attn"> of the drawing (the script's own text is outside <svg id="view">),
// with the text of its <title> (the tooltip) keyed by the line.
struct Drawing {
    Lines lines;
    std::map<Line, std::string> tooltips;
};
Drawing dom_lines(const std::string& dom) {
    const std::size_t begin = dom.find("<svg id=\"view\""), end = dom.find("</svg>", begin);
    if (begin == std::string::npos || end == std::string::npos) throw ValueError("browser_test: no <svg id=\"view\"> in the DOM");
    Drawing d;
    for (std::size_t at = dom.find("<line ", begin); at < end; at = dom.find("<line ", at + 1)) {
        const std::string tag = dom.substr(at, dom.find('>', at) - at);
        if (attribute(tag, "class") != "attn") continue;
        const Line line{std::stol(attribute(tag, "data-head")), std::stol(attribute(tag, "data-from")),
                        std::stol(attribute(tag, "data-to")), attribute(tag, "data-weight")};
        d.lines.insert(line);
        const std::size_t title = dom.find("<title>", at), close = dom.find("</line>", at);
        if (title < close) d.tooltips[line] = unescape(dom.substr(title + 7, dom.find("</title>", title) - title - 7));
    }
    return d;
}

// The text inside the first element that opens with `open`, e.g. <div id="error" ...>...</div>.
std::string element_text(const std::string& dom, const std::string& open, const std::string& close) {
    const std::size_t at = dom.find(open);
    if (at == std::string::npos) throw ValueError("browser_test: no " + open + "> in the DOM");
    const std::size_t start = dom.find('>', at) + 1;
    return unescape(dom.substr(start, dom.find(close, start) - start));
}

// What the page must show for `c`, computed from the data it embeds.
Lines expected_lines(const Json& data, const Case& c) {
    const Json* model = nullptr;
    for (const Json& m : data.at("models").as_array())
        if (m.at("key").as_string() == c.model) model = &m;
    if (!model) throw ValueError("browser_test: the data has no model '" + c.model + "'");
    const Json& layer = model->at("attention").as_array().at(static_cast<std::size_t>(c.sentence)).as_array().at(
        static_cast<std::size_t>(c.layer));
    Lines lines;
    for (long h = 0; h < static_cast<long>(layer.size()); ++h) {
        if (!c.heads.empty() && std::find(c.heads.begin(), c.heads.end(), h) == c.heads.end()) continue;
        const Json::Array& rows = layer.as_array()[static_cast<std::size_t>(h)].as_array();
        for (long i = 0; i < static_cast<long>(rows.size()); ++i)
            for (long j = 0; j < static_cast<long>(rows[static_cast<std::size_t>(i)].size()); ++j) {
                const double w = rows[static_cast<std::size_t>(i)].as_array()[static_cast<std::size_t>(j)].as_double();
                if (w == 0 || (c.side == 'q' && i != c.token) || (c.side == 'k' && j != c.token)) continue;
                char text[32];
                std::snprintf(text, sizeof text, "%.*f", static_cast<int>(data.at("decimals").as_int64()), w);
                lines.insert({h, i, j, text});
            }
    }
    return lines;
}

std::string describe(const Lines& lines, std::size_t limit = 4) {
    std::string out;
    std::size_t n = 0;
    for (const Line& l : lines) {
        if (n++ == limit) return out + " ...";
        out += " [head " + std::to_string(l.head + 1) + ": " + std::to_string(l.from) + "->" + std::to_string(l.to) + " " +
               l.weight + "]";
    }
    return out.empty() ? " (none)" : out;
}

// What the page's tooltip must say for `l`: heads numbered from 1, tokens by position from 0.
std::string expected_tooltip(const Json& data, long sentence, const Line& l) {
    const Json::Array& tokens = data.at("sentences").as_array().at(static_cast<std::size_t>(sentence)).at("tokens").as_array();
    const auto token = [&](long i) { return tokens.at(static_cast<std::size_t>(i)).as_string() + " (" + std::to_string(i) + ")"; };
    return "head " + std::to_string(l.head + 1) + ": " + token(l.from) + " \u2192 " + token(l.to) + " = " + l.weight;
}

// "" if `shown` is exactly `expected`, else what differs.
std::string compare(const Lines& shown, const Lines& expected) {
    Lines missing, extra;
    for (const Line& l : expected) if (!shown.count(l)) missing.insert(l);
    for (const Line& l : shown) if (!expected.count(l)) extra.insert(l);
    if (missing.empty() && extra.empty()) return "";
    return std::to_string(missing.size()) + " missing:" + describe(missing) + "; " + std::to_string(extra.size()) +
           " unexpected:" + describe(extra);
}

}  // namespace

int main(int argc, char** argv) {
    lab::Options opt("browser_test", "Checks out/phase3/explorer.html in a headless Chromium: every attention line the "
                                     "page draws is the one its data says (run from the repository root after make phase3).");
    opt.add("browser", "PATH", "chromium", "the Chromium binary to drive");
    opt.parse(argc, argv);
    const std::string browser = opt.text("browser");
    int passed = 0, failed = 0;
    auto report = [&](const std::string& name, const std::string& problem) {
        std::printf("  %s %s%s%s\n", problem.empty() ? "ok  " : "FAIL", name.c_str(), problem.empty() ? "" : ": ",
                    problem.c_str());
        (problem.empty() ? passed : failed) += 1;
    };
    try {
        const Json data = load_json(kData);
        const std::string url = "file://" + std::filesystem::absolute(kPage).string() + "#";
        const std::vector<Case> cases{
            {"model=causal&sentence=1&layer=2&head=3&token=3", "causal", 0, 1, {2}, 'q', 3, "",
             "causal_model (causal), sentence 1, layer 2, head 3, query 3 \u201csat\u201d: "},
            {"model=bidirectional&sentence=1&layer=2&head=3&token=3", "bidirectional", 0, 1, {2}, 'q', 3},
            {"model=bidirectional&sentence=3&layer=1&head=1,4&key=5", "bidirectional", 2, 0, {0, 3}, 'k', 5, "",
             "multi_head_model (bidirectional), sentence 3, layer 1, head 1, 4, key 5 "},
            {"model=causal&sentence=2&layer=1&key=4", "causal", 1, 0, {}, 'k', 4},
            {"model=causal&sentence=8&layer=2", "causal", 7, 1, {}, 0, 0, "",
             "causal_model (causal), sentence 8, layer 2, head 1, 2, 3, 4: "},
            {"model=causal&layer=3&token=1", "causal", 0, 0, {}, 0, 0, "layer=3 is out of range: causal_model's layer list runs from 1 to 2"},
            {"model=causal&layer=0", "causal", 0, 0, {}, 0, 0, "layer=0 is out of range"},
            {"model=causal&head=0", "causal", 0, 0, {}, 0, 0, "head=0 is out of range"},
            {"model=causal&sentence=11", "causal", 0, 0, {}, 0, 0, "sentence=11 is out of range"},
        };
        std::string first_dom;
        for (const Case& c : cases) {
            const std::string dom = chromium(browser, "--dump-dom", url + c.fragment);
            if (first_dom.empty()) first_dom = dom;
            const std::string error = element_text(dom, "<div id=\"error\"", "</div>");
            const std::string status = element_text(dom, "<p id=\"status\"", "</p>");
            const Drawing drawn = dom_lines(dom);
            const Lines expected = expected_lines(data, c);
            std::string problem;
            if (c.error.empty() && !error.empty()) problem = "the page reports an error: " + error;
            if (!c.error.empty() && error.find(c.error) == std::string::npos)
                problem = "expected the page to report '" + c.error + "', it reports '" + error + "'";
            if (problem.empty()) problem = compare(drawn.lines, expected);
            if (problem.empty() && drawn.lines.empty()) problem = "no lines at all";
            if (problem.empty() && status.rfind(c.status, 0) != 0)
                problem = "the status line reads '" + status + "', expected it to start with '" + c.status + "'";
            if (problem.empty() && status.find(": " + std::to_string(expected.size()) + " lines") == std::string::npos)
                problem = "the status line '" + status + "' does not count " + std::to_string(expected.size()) + " lines";
            for (const Line& l : drawn.lines) {  // now the lines are the expected ones, so their tokens exist
                if (!problem.empty()) break;
                const std::string want = expected_tooltip(data, c.sentence, l);
                const auto tip = drawn.tooltips.find(l);
                if (tip == drawn.tooltips.end() || tip->second != want)
                    problem = "a line's tooltip reads '" + (tip == drawn.tooltips.end() ? "" : tip->second) + "', expected '" +
                              want + "'";
            }
            report("#" + c.fragment + " (" + std::to_string(expected.size()) + " lines)", problem);
        }
        // The control: the first page must not pass as the neighbouring token's lines.
        Case other = cases[0];
        other.token += 1;
        report("control: the lines of token 3 do not pass as those of token 4",
               compare(dom_lines(first_dom).lines, expected_lines(data, other)).empty() ? "the comparison accepted them" : "");

        std::filesystem::remove(kScreenshot);
        chromium(browser, "--screenshot=" + std::filesystem::absolute(kScreenshot).string() +
                              " --window-size=1280,900 --hide-scrollbars",
                 url + cases[0].fragment);
        const std::string png = std::filesystem::exists(kScreenshot) ? read_file(kScreenshot) : "";
        report("screenshot " + kScreenshot + " (" + std::to_string(png.size() / 1024) + " KB)",
               png.rfind("\x89PNG\r\n\x1a\n", 0) == 0 ? "" : "no PNG written");
    } catch (const std::exception& e) {
        report("setup", e.what());
    }
    std::printf("browser: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
