// test_tinygpt_cli.cpp — the bad-input catalogue of `tinygpt`, as a user meets it: each
// case runs build/tinygpt as a process and checks its exit status (0 ok, 1 failed while
// running, 2 bad flag) and a fragment of what it says: untrusted files, long runs, every
// flag's bad values.
//
// Models are tiny (d_model 16, 1 layer, context 8) and runs a few steps, so the whole
// catalogue takes seconds. Files it needs (a bomb header, NaN weights, a FIFO) are made
// in build/test_tmp/cli/ by make_fixtures (tests/support/tinygpt_cli.hpp).
#include <catch2/catch.hpp>

#include "tests/support/tinygpt_cli.hpp"

using namespace attnlab;
using namespace attnlab::testing::tinygpt_cli;
using attnlab::testing::run_program;
using Catch::Contains;

TEST_CASE("tinygpt: flags and usage", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    run_cases({
        {"no command", {}, 2, "usage: tinygpt <command>"},
        {"--help", {"--help"}, 0, "commands:"},
        {"train --help", {"train", "--help"}, 0, "only --steps (to extend the run)"},
        {"train --help: a switch is bare", {"train", "--help"}, 0, "  --unscaled              scores q.k without"},
        {"train --help: defaults are the recipe's", {"train", "--help"}, 0, "--d-model D             model width (at most 4096) (default: 64)"},
        {"generate --help", {"generate", "--help"}, 0, "  --no-kv-cache           recompute"},
        {"eval --help", {"eval", "--help"}, 0, "usage: tinygpt eval"},
        {"show --help", {"show", "--help"}, 0, "--from-npy F.npy"},
        {"unknown flag (generate)", {"generate", "--sentence", "the"}, 2, "tinygpt generate: unknown flag '--sentence'"},
        {"unknown flag (eval)", {"eval", "--bogus", "1"}, 2, "tinygpt eval: unknown flag '--bogus'"},
        {"unknown flag (show)", {"show", "--bogus", "1"}, 2, "tinygpt show: unknown flag '--bogus'"},
        {"a switch given a value", {"train", "--unscaled=yes"}, 2, "--unscaled is a switch and takes no value (got '--unscaled=yes')"},
        {"a switch given twice", {"train", "--unscaled", "--unscaled"}, 2, "--unscaled is given twice"},
        {"generate's switch given a value", {"generate", "--no-kv-cache=1"}, 2, "--no-kv-cache is a switch and takes no value"},
        {"generate's switch given twice", {"generate", "--no-kv-cache", "--no-kv-cache"}, 2, "--no-kv-cache is given twice"},
        {"a bare word", {"eval", "the"}, 2, "unexpected argument 'the'"},
        {"unknown command", {"fly"}, 2, "unknown command 'fly'"},
        {"unknown flag", {"train", "--bogus"}, 2, "tinygpt train: unknown flag '--bogus'"},
        {"flag without value", {"train", "--steps"}, 2, "--steps needs a value"},
        {"flag twice", {"train", "--steps", "5", "--steps", "6"}, 2, "--steps is given twice"},
        {"steps 0", {"train", "--steps", "0"}, 2, "--steps needs an integer in [1, 1000000000], got '0'"},
        {"steps not a number", {"train", "--steps", "12x"}, 2, "--steps needs an integer in [1, 1000000000], got '12x'"},
        {"unknown model", {"train", "--model", "gpt5"}, 2, "--model must be causal, single-head, multi-head or qkv-head, got 'gpt5'"},
        {"lr nan", {"train", "--lr", "nan"}, 2, "--lr needs a number >= 0, got 'nan'"},
        {"lr negative", {"train", "--lr", "-1"}, 2, "--lr needs a number >= 0, got '-1'"},
        {"mask prob above 1", {"train", "--mask-prob", "1.5"}, 2, "--mask-prob needs a number in (0, 1], got '1.5'"},
        {"clip 0", {"train", "--clip", "0"}, 2, "--clip needs a number > 0, got '0'"},
        {"eval every 0", {"train", "--eval-every", "0"}, 2, "--eval-every needs an integer in [1, 1000000000], got '0'"},
        {"seed negative", {"train", "--seed", "-3"}, 2, "--seed needs an integer >= 0, got '-3'"},
        {"generate: no prompt", {"generate", "--checkpoint", ck}, 2, "--prompt is required"},
        {"eval: no checkpoint", {"eval", "--prompt", "the cat"}, 2, "--checkpoint is required"},
        {"generate: tokens 0", {"generate", "--checkpoint", ck, "--prompt", "the", "--tokens", "0"}, 2, "--tokens '0': must be between 1 and 1000000"},
        {"generate: top-k -1", {"generate", "--checkpoint", ck, "--prompt", "the", "--top-k", "-1"}, 2, "--top-k '-1': must be between 0 and 1000000"},
    });
}

TEST_CASE("tinygpt train --shards: the same checkpoint on 1 thread and on 2, recorded for --resume", "[tools][tinygpt][cli]") {
    make_fixtures();
    // A masked-token model with dropout: padded rows, ignored targets and per-shard dropout draws.
    const auto train_on = [](const char* threads, const std::string& out) {
        std::vector<std::string> args{"/usr/bin/env", std::string("ATTNLAB_NUM_THREADS=") + threads, testing::program_path("tinygpt")};
        for (const std::string& a : tiny_train({"--model", "multi-head", "--steps", "6", "--shards", "2", "--dropout", "0.1", "--out", out}))
            args.push_back(a);
        return run_program(args, 60);
    };
    const std::string one = at("shards_t1.safetensors"), two = at("shards_t2.safetensors");
    const auto r1 = train_on("1", one), r2 = train_on("2", two);
    INFO(r1.output << r2.output);
    REQUIRE(r1.exit_code == 0);
    REQUIRE(r2.exit_code == 0);
    const auto bytes = [](const std::string& path) {
        std::ifstream f(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(f), {});
    };
    CHECK(bytes(one).size() > 1000);
    CHECK(bytes(one) == bytes(two));  // weights, optimiser state, loss curve: every bit
    CHECK(nn::load_checkpoint(one).metadata.at("shards") == "2");
    run_cases({
        {"--shards 0", {"train", "--shards", "0"}, 2, "--shards needs an integer in [1, 64], got '0'"},
        {"--shards contradicts on resume", {"train", "--resume", one, "--steps", "8", "--shards", "1"}, 2, "trained with shards 2"},
        {"a resumed run keeps its shards", {"train", "--resume", one, "--steps", "8"}, 0, "resuming"},
    });
    CHECK(nn::load_checkpoint(one).metadata.at("shards") == "2");
}

TEST_CASE("tinygpt train: the course's knobs, each with a good and a bad value", "[tools][tinygpt][cli]") {
    make_fixtures();
    const auto meta = [](const std::string& path) { return nn::load_checkpoint(path).metadata; };
    const std::string local = at("local.safetensors"), none = at("nomask.safetensors"), strided = at("strided.safetensors");
    const std::string knobs = at("knobs.safetensors"), qkv = at("qkv.safetensors");
    run_cases({
        {"--mask local:3", tiny_train({"--mask", "local:3", "--out", local}), 0, "wrote"},
        {"--mask none says what beating the floor means", tiny_train({"--mask", "none", "--out", none}), 0,
         "note: trained with --mask none, each position saw the token it predicts"},
        {"generate refuses a model trained without the mask", {"generate", "--checkpoint", none, "--prompt", "the"}, 1, "is a bidirectional (--mask none) model"},
        {"--mask strided:2", tiny_train({"--mask", "strided:2", "--out", strided}), 0, "wrote"},
        {"--unscaled --dropout 0.1 and the schedule knobs",
         tiny_train({"--unscaled", "--dropout", "0.1", "--weight-decay", "0.05", "--clip", "0.5", "--out", knobs}), 0, "wrote"},
        {"--model qkv-head --mask-prob 0.3",
         {"train", "--model", "qkv-head", "--steps", "4", "--d-model", "16", "--layers", "1", "--context", "8", "--batch", "2",
          "--eval-every", "2", "--mask-prob", "0.3", "--out", qkv}, 0, "attention 768 per block"},  // 3 * 16²
        {"--mask bogus", {"train", "--mask", "bogus"}, 2, "--mask 'bogus' is not a mask: none, causal, local:W or strided:S"},
        {"--mask local:0", {"train", "--mask", "local:0"}, 2, "--mask 'local:0': W of local:W needs an integer in [1, 8192]"},
        {"--mask local:x", {"train", "--mask", "local:x"}, 2, "--mask 'local:x': W of local:W needs an integer"},
        {"--mask strided:-2", {"train", "--mask", "strided:-2"}, 2, "--mask 'strided:-2': S of strided:S needs an integer in [1, 8192]"},
        {"--mask causal on a masked-token model", {"train", "--model", "multi-head", "--mask", "causal"}, 2, "--mask causal: multi-head predicts hidden words from both sides; the causal mask is for next-token models"},
        {"--dropout 1", {"train", "--dropout", "1"}, 2, "--dropout needs a number in [0, 1), got '1'"},
        {"--dropout -0.1", {"train", "--dropout", "-0.1"}, 2, "--dropout needs a number in [0, 1), got '-0.1'"},
        {"--unscaled takes no value", {"train", "--unscaled", "yes"}, 2, "unexpected argument 'yes': --unscaled is a switch and takes no value"},
        {"--warmup -1", {"train", "--warmup", "-1"}, 2, "--warmup needs an integer in [0, 1000000000], got '-1'"},
        {"--weight-decay x", {"train", "--weight-decay", "x"}, 2, "--weight-decay needs a number >= 0, got 'x'"},
        {"qkv-head with 2 heads", {"train", "--model", "qkv-head", "--heads", "2"}, 2, "qkv-head has 1 head, not n_heads 2"},
        {"--mask contradicts on resume", {"train", "--resume", local, "--steps", "6", "--mask", "local:4"}, 2, "trained with window 3"},
        {"--unscaled contradicts on resume", {"train", "--resume", local, "--steps", "6", "--unscaled"}, 2, "--unscaled contradicts"},
        {"--dropout contradicts on resume", {"train", "--resume", knobs, "--steps", "6", "--dropout", "0"}, 2, "trained with dropout 0.1"},
        {"a resumed run keeps its knobs", {"train", "--resume", knobs, "--steps", "6"}, 0, "resuming"},
        {"--tokens words, causal", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--out", at("words.safetensors")}), 0, "causal on the words of"},
        {"--tokens words, masked-token", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--model", "multi-head", "--out", at("words_mh.safetensors")}), 0, "multi-head on the words of"},
        {"--tokens chars", tiny_train({"--corpus", at("corpus.txt"), "--tokens", "chars", "--out", at("chars2.safetensors")}), 0, "characters of"},
        {"generate from a word model", {"generate", "--checkpoint", at("words.safetensors"), "--prompt", "the cat", "--tokens", "3"}, 0, "the cat"},
        {"a prompt word the corpus lacks", {"generate", "--checkpoint", at("words.safetensors"), "--prompt", "the zebra"}, 1, "zebra"},
        {"--tokens bytes", {"train", "--corpus", at("corpus.txt"), "--tokens", "bytes"}, 2, "--tokens needs words or chars, got 'bytes'"},
        {"--tokens without --corpus", {"train", "--tokens", "words"}, 2, "--tokens words needs --corpus FILE"},
        {"masked-token on characters", {"train", "--corpus", at("corpus.txt"), "--model", "multi-head"}, 2, "needs --tokens words"},
        {"--tokens contradicts on resume", {"train", "--resume", at("words.safetensors"), "--steps", "6", "--tokens", "chars"}, 2, "trained with word_tokens true"},
    });
    // What each flag set is what the checkpoint's run (and model) records.
    CHECK(meta(local).at("window") == "3");
    CHECK(meta(local).at("causal") == "true");  // local:W keeps a next-token model causal
    CHECK(meta(none).at("causal") == "false");
    CHECK(meta(strided).at("stride") == "2");
    CHECK(meta(knobs).at("scaled") == "false");
    CHECK(meta(knobs).at("dropout") == "0.10000000000000001");
    CHECK(meta(knobs).at("weight_decay") == "0.05");
    CHECK(meta(knobs).at("step") == "6");
    CHECK(meta(at("words.safetensors")).at("word_tokens") == "true");
    CHECK(meta(at("words_mh.safetensors")).at("kind") == "multi-head");
    CHECK(meta(qkv).at("kind") == "qkv-head");
    CHECK(meta(qkv).at("qkv_only") == "true");
    CHECK(meta(qkv).at("mask_prob") == "0.3");
    CHECK_FALSE(nn::load_checkpoint(qkv).model->named_parameters().empty());
}

TEST_CASE("tinygpt vocab lists what a model knows; --lowercase and --split-punctuation read prompts as the corpus",
          "[tools][tinygpt][cli][vocab]") {
    make_fixtures();
    const std::string words = at("vocab_words.safetensors"), rules = at("vocab_rules.safetensors");
    write_file_atomic(at("cased.txt"), [] {
        std::string text;
        for (int i = 0; i < 20; ++i) text += "The cat sat on the mat. A dog sat on the cat!\n";
        return text;
    }());
    run_cases({
        {"a word model", tiny_train({"--corpus", at("cased.txt"), "--tokens", "words", "--out", words}), 0, "wrote"},
        {"the rules", tiny_train({"--corpus", at("cased.txt"), "--tokens", "words", "--lowercase", "--split-punctuation", "--out", rules}), 0,
         "causal on the words of '" + at("cased.txt") + "' (lowercased, punctuation split)"},
        {"vocab with counts", {"vocab", "--checkpoint", words}, 0, "knows 13 tokens of the words of '" + at("cased.txt") + "': 4 special, 9 words"},
        {"vocab by count", {"vocab", "--checkpoint", rules, "--sort", "count"}, 0, "(lowercased, punctuation split): 4 special, 9 words"},
        {"vocab of the grammar", {"vocab", "--checkpoint", at("ck.safetensors")}, 0, "tokens of the toy grammar's words: 4 special"},
        {"vocab of characters", {"vocab", "--checkpoint", at("char.safetensors")}, 0, "1 special"},
        {"--sort count on the grammar", {"vocab", "--checkpoint", at("ck.safetensors"), "--sort", "count"}, 2, "records no token counts"},
        {"--sort bogus", {"vocab", "--checkpoint", words, "--sort", "bogus"}, 2, "--sort 'bogus': must be one of id, count"},
        {"vocab without --checkpoint", {"vocab"}, 2, "--checkpoint is required"},
        {"vocab of a directory", {"vocab", "--checkpoint", at("adir")}, 2, "is a directory"},
        // The model of the rules reads "THE Cat sat." as "the cat sat .", 4 tokens; the other knows "sat." nowhere
        // (its 9 words are few enough to list whole).
        {"a prompt under the rules", {"eval", "--checkpoint", rules, "--prompt", "THE Cat sat."}, 0, "over 3 predictions"},
        {"a prompt without them", {"eval", "--checkpoint", words, "--prompt", "the cat sat."}, 1,
         "unknown word 'sat.'; the vocabulary is A, The, cat, cat!, dog, mat., on, sat, the"},
        {"generate under the rules", {"generate", "--checkpoint", rules, "--prompt", "A DOG!", "--tokens", "2"}, 0, "A DOG!"},
        {"--lowercase without words", {"train", "--corpus", at("cased.txt"), "--lowercase"}, 2, "--lowercase needs --corpus FILE --tokens words"},
        {"--split-punctuation on the grammar", {"train", "--split-punctuation"}, 2, "--split-punctuation needs --corpus FILE --tokens words"},
        {"--lowercase takes no value", {"train", "--lowercase", "yes"}, 2, "--lowercase is a switch"},
        {"--lowercase contradicts on resume", {"train", "--resume", words, "--steps", "6", "--lowercase"}, 2,
         "--lowercase contradicts '" + words + "', which was trained with lowercase false"},
        {"a resumed run keeps its rules", {"train", "--resume", rules, "--steps", "6"}, 0, "resuming"},
    });
    const auto meta = nn::load_checkpoint(rules).metadata;
    CHECK(meta.at("lowercase") == "true");
    CHECK(meta.at("split_punctuation") == "true");
    // Counts over the whole text, 20 lines of "the cat sat on the mat . a dog sat on the cat !": 280 words.
    // In id order, the specials then the words sorted by their bytes ("!" 4, "." 5, "a" 6, "cat" 7, ...).
    const auto rows = [](const std::string& output) {  // each line as its whitespace-separated fields
        std::vector<std::vector<std::string>> out;
        std::istringstream lines(output);
        for (std::string line; std::getline(lines, line);) {
            std::istringstream fields(line);
            out.emplace_back(std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>());
        }
        return out;
    };
    using Row = std::vector<std::string>;
    const testing::ProgramRun by_id = tinygpt({"vocab", "--checkpoint", rules});
    INFO(by_id.output);
    const auto id_rows = rows(by_id.output);
    CHECK(id_rows.at(1) == Row{"id", "token", "count", "share", "%"});
    CHECK(id_rows.at(2) == Row{"0", "<pad>", "0", "0.00"});
    CHECK(id_rows.at(6) == Row{"4", "!", "20", "7.14"});
    CHECK(id_rows.at(9) == Row{"7", "cat", "40", "14.29"});
    CHECK(id_rows.size() == 2 + 13);
    const testing::ProgramRun by_count = tinygpt({"vocab", "--checkpoint", rules, "--sort", "count"});
    INFO(by_count.output);
    const auto count_rows = rows(by_count.output);
    CHECK(count_rows.at(2) == Row{"12", "the", "60", "21.43"});  // most frequent first, ties in id order
    CHECK(count_rows.at(3) == Row{"7", "cat", "40", "14.29"});
    CHECK(count_rows.back() == Row{"3", "[MASK]", "0", "0.00"});
    const testing::ProgramRun grammar = tinygpt({"vocab", "--checkpoint", at("ck.safetensors")});
    INFO(grammar.output);
    CHECK(rows(grammar.output).at(1) == Row{"id", "token"});  // no counts: the grammar is rules, not a text
    CHECK_THAT(grammar.output, Contains(" cat\n"));
}

TEST_CASE("a copy of tinygpt outside the checkout writes the explorer from what it carries", "[tools][tinygpt][cli][relocatable]") {
    make_fixtures();
    // Only the program moves: no source tree, no build folder beside it, another working folder.
    const fs::path away = fs::temp_directory_path() / ("attnlab_relocated_" + std::to_string(::getpid()));
    fs::remove_all(away);
    fs::create_directories(away / "bin");
    fs::copy_file(testing::program_path("tinygpt"), away / "bin" / "tinygpt");
    fs::permissions(away / "bin" / "tinygpt", fs::perms::owner_exec, fs::perm_options::add);
    const testing::ProgramRun r = run_program({(away / "bin" / "tinygpt").string(), "show", "--checkpoint", at("ck.safetensors"),
                                               "--prompt", "the cat sat", "--out", "show"},
                                              60, 0, away.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const std::string page = read_file((away / "show" / "explorer.html").string());
    // The page holds the scripts as they are in the tree: its forward pass and tokenizer run in the browser.
    CHECK_THAT(page, Contains(read_file(std::string(ATTNLAB_SOURCE_DIR) + "/explorer/model.js")));
    CHECK_THAT(page, Contains(read_file(std::string(ATTNLAB_SOURCE_DIR) + "/explorer/explorer.js")));
    CHECK_THAT(page, Contains(R"("tokenizer":{"unit":"word","prefix":["\u003cbos>"],"suffix":[],"lowercase":false,"split_punctuation":false})"));
    // Nor does a release program name this checkout anywhere: moving the tree changes none of its
    // bytes. (A sanitized or debug build names its source files for its reports and debugger.)
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
    constexpr bool kNamesItsSources = true;
#elif defined(__has_feature)
    constexpr bool kNamesItsSources = __has_feature(address_sanitizer);
#else
    constexpr bool kNamesItsSources = false;
#endif
    if (!kNamesItsSources) CHECK(read_file(testing::program_path("tinygpt")).find(ATTNLAB_SOURCE_DIR) == std::string::npos);
    fs::remove_all(away);
}

TEST_CASE("tinygpt show and generate --show draw any model on any text", "[tools][tinygpt][cli][show]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), words = at("words.safetensors");
    if (!fs::exists(words)) REQUIRE(tinygpt(tiny_train({"--corpus", at("corpus.txt"), "--tokens", "words", "--out", words})).exit_code == 0);
    write_file_atomic(at("sentences.txt"), "the cat sat\n\nthe dog ran\n");
    write_file_atomic(at("blank.txt"), "\n  \n");
    write_file_atomic(at("afile"), "x");
    REQUIRE(tinygpt({"eval", "--checkpoint", ck, "--prompt", "the cat sat", "--dump-attention", at("att.npy")}).exit_code == 0);
    save_npy(at("not_attention.npy"), zeros({2, 3}));
    const auto pngs = [](const std::string& d) {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(d))
            if (e.path().extension() == ".png" && fs::file_size(e.path()) > 1000) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    };
    const std::vector<std::string> four{"attention_entropy.png", "attention_flow.png", "attention_heads.png", "attention_rollout.png"};
    run_cases({
        {"show --help", {"show", "--help"}, 0, "--from-npy F.npy"},
        {"show a prompt", {"show", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_prompt")}, 0, "attention_heads.svg"},
        {"show sentences", {"show", "--checkpoint", ck, "--sentences", at("sentences.txt"), "--out", at("show_lines")}, 0, "sentence_2/attention_entropy"},
        {"show a character model, a space in the prompt", {"show", "--checkpoint", at("char.safetensors"), "--prompt", "the cat", "--out", at("show_chars")}, 0, "explorer.html"},
        {"show a word-corpus model", {"show", "--checkpoint", words, "--prompt", "the cat sat", "--out", at("show_words")}, 0, "attention_flow"},
        {"show --from-npy", {"show", "--from-npy", at("att.npy"), "--out", at("show_npy")}, 0, "attention_rollout"},
        {"show --from-npy with labels", {"show", "--from-npy", at("att.npy"), "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_npy2")}, 0, "attention_heads"},
        {"generate --show", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "3", "--show", at("show_gen")}, 0, "generated_layer1.svg"},
        {"show without --out", {"show", "--checkpoint", ck, "--prompt", "the cat"}, 2, "--out DIR is required"},
        {"show without text", {"show", "--checkpoint", ck, "--out", at("show_x")}, 2, "give --prompt TEXT or --sentences FILE"},
        {"show with both texts", {"show", "--checkpoint", ck, "--prompt", "the", "--sentences", at("sentences.txt"), "--out", at("show_x")}, 2, "(one of them)"},
        {"show --out is a file", {"show", "--checkpoint", ck, "--prompt", "the", "--out", at("afile")}, 2, "exists and is not a directory"},
        {"show an unknown word", {"show", "--checkpoint", ck, "--prompt", "the zebra", "--out", at("show_x")}, 1, "zebra"},
        {"show blank sentences", {"show", "--checkpoint", ck, "--sentences", at("blank.txt"), "--out", at("show_x")}, 1, "has no sentences"},
        {"show --from-npy not attention", {"show", "--from-npy", at("not_attention.npy"), "--out", at("show_x")}, 1, "not attention weights [L, H, T, T]"},
        {"show --from-npy missing", {"show", "--from-npy", at("nope.npy"), "--out", at("show_x")}, 2, "nope.npy"},
        {"show --from-npy labels of another length", {"show", "--from-npy", at("att.npy"), "--checkpoint", ck, "--prompt", "the cat", "--out", at("show_x")}, 1, "expected ["},
        {"generate --show is a file", {"generate", "--checkpoint", ck, "--prompt", "the", "--show", at("afile")}, 2, "exists and is not a directory"},
        {"show --graph", {"show", "--checkpoint", ck, "--prompt", "the cat sat", "--out", at("show_graph"), "--graph"}, 0, "autograd_graph_attention.svg"},
        {"show --graph with --sentences", {"show", "--checkpoint", ck, "--sentences", at("sentences.txt"), "--out", at("show_x"), "--graph"}, 2, "--graph draws one text's graph"},
        {"show --graph with --from-npy", {"show", "--from-npy", at("att.npy"), "--out", at("show_x"), "--graph"}, 2, "give it with --prompt TEXT"},
        {"show --graph given a value", {"show", "--checkpoint", ck, "--prompt", "the cat", "--out", at("show_x"), "--graph", "yes"}, 2, "--graph is a switch and takes no value"},
        {"show --graph on one token", {"show", "--checkpoint", words, "--prompt", "the", "--out", at("show_x"), "--graph"}, 1, "needs 2 to"},
    });
    for (const char* d : {"show_lines/sentence_1", "show_lines/sentence_2", "show_npy", "show_npy2"}) {
        INFO(d);
        CHECK(pngs(at(d)) == four);
    }
    // A training checkpoint adds its heads' entropy at every evaluation of its run.
    std::vector<std::string> five = four;
    five.push_back("entropy_over_training.png");
    std::sort(five.begin(), five.end());
    for (const char* d : {"show_prompt", "show_words", "show_lines"}) {
        INFO(d);
        const std::vector<std::string> names = pngs(at(d));
        CHECK(std::find(names.begin(), names.end(), "entropy_over_training.png") != names.end());
    }
    CHECK(pngs(at("show_prompt")) == five);
    CHECK_FALSE(fs::exists(at("show_lines/sentence_3")));  // the blank line is skipped
    // One explorer page per show, holding every text: its data names them and the model.
    for (const char* d : {"show_prompt", "show_lines", "show_words", "show_npy"}) {
        INFO(d);
        CHECK(fs::file_size(at(std::string(d) + "/explorer.html")) > 10000);
    }
    const std::string lines = read_file(at("show_lines/explorer_data.json"));
    CHECK_THAT(lines, Contains("\"text\": \"the cat sat\"") || Contains("\"text\":\"the cat sat\""));
    CHECK_THAT(lines, Contains("the dog ran"));
    CHECK_THAT(lines, Contains("\"causal\": true") || Contains("\"causal\":true"));
    CHECK(pngs(at("show_gen")) == std::vector<std::string>{"generated_layer1.png"});  // the tiny model has 1 layer
    // --graph adds the graph backward() walks, one box per module and the attention op by op
    std::vector<std::string> six = five;
    six.insert(six.end(), {"autograd_graph.png", "autograd_graph_attention.png"});
    std::sort(six.begin(), six.end());
    CHECK(pngs(at("show_graph")) == six);
    CHECK_THAT(read_file(at("show_graph/autograd_graph.svg")), Contains("blocks.0.attn: 2 heads") && Contains("loss: cross-entropy"));
}

TEST_CASE("tinygpt: limits shared by trainer and loader, header bombs", "[tools][tinygpt][cli]") {
    make_fixtures();
    run_cases({
        {"--layers 65", {"train", "--layers", "65"}, 2, "--layers needs an integer in [1, 64], got '65'"},
        {"--d-model 100000", {"train", "--d-model", "100000"}, 2, "--d-model needs an integer in [1, 4096], got '100000'"},
        {"--context 65536", {"train", "--context", "65536"}, 2, "--context needs an integer in [4, 8192], got '65536'"},
        {"too many parameters together", {"train", "--d-model", "4096", "--layers", "64"}, 2, "parameters, more than the limit of 268435456"},
        {"heads do not divide d_model", {"train", "--d-model", "30", "--heads", "4"}, 2, "d_model 30 is not divisible by n_heads 4"},
        {"single-head with 4 heads", {"train", "--model", "single-head", "--heads", "4"}, 2, "single-head has 1 head, not n_heads 4"},
        {"bomb: eval", {"eval", "--checkpoint", at("bomb.safetensors"), "--prompt", "the cat"}, 1, "context 65536 is outside [1, 8192]"},
        {"bomb: generate", {"generate", "--checkpoint", at("bomb.safetensors"), "--prompt", "the cat"}, 1, "bomb.safetensors"},
        {"bomb: resume", {"train", "--resume", at("bomb.safetensors"), "--steps", "9"}, 1, "context 65536 is outside"},
    });
}

TEST_CASE("tinygpt: a header bomb fails within a small memory limit", "[tools][tinygpt][cli]") {
    make_fixtures();
    // Not under ASan: it reserves terabytes of shadow address space, so RLIMIT_AS cannot apply.
#if !defined(__SANITIZE_ADDRESS__)
    const auto r = run_program({testing::program_path("tinygpt"), "eval", "--checkpoint", at("bomb.safetensors"), "--prompt",
                                "the cat"},
                               20, std::uint64_t(512) << 20);  // 512 MiB; the claimed model is ~52 GB
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("context 65536 is outside"));
#endif
}

TEST_CASE("tinygpt: resume restores the run and never destroys a checkpoint", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    run_cases({
        {"finished run, no --steps", {"train", "--resume", ck}, 2, "has done all 4 steps of its run; give --steps N > 4"},
        {"--steps below the step", {"train", "--resume", ck, "--steps", "3"}, 2, "--steps 3 must exceed the step of"},
        {"--steps equal to the step", {"train", "--resume", ck, "--steps", "4"}, 2, "--steps 4 must exceed the step of"},
        {"--lr contradicts", {"train", "--resume", ck, "--steps", "6", "--lr", "0.01"}, 2, "--lr 0.01 contradicts"},
        {"--lr names the stored value", {"train", "--resume", ck, "--steps", "6", "--lr", "0.01"}, 2, "trained with lr 0.003"},
        {"--d-model contradicts", {"train", "--resume", ck, "--steps", "6", "--d-model", "32"}, 2, "--d-model 32 contradicts"},
        {"--heads contradicts", {"train", "--resume", ck, "--steps", "6", "--heads", "4"}, 2, "trained with n_heads 2"},
        {"--batch contradicts", {"train", "--resume", ck, "--steps", "6", "--batch", "8"}, 2, "trained with batch 2"},
        {"--seed contradicts", {"train", "--resume", ck, "--steps", "6", "--seed", "7"}, 2, "--seed 7 contradicts"},
        {"--model contradicts", {"train", "--resume", ck, "--steps", "6", "--model", "multi-head"}, 2, "trained with task causal"},
        {"--corpus on a grammar model", {"train", "--resume", ck, "--steps", "6", "--corpus", at("corpus.txt")}, 2, "is a causal model of the grammar"},
        {"same settings repeated are fine, a finished run still needs --steps", {"train", "--resume", ck, "--lr", "0.003"}, 2, "has done all 4 steps"},
        {"char model, same size other text", {"train", "--resume", chars, "--steps", "6", "--corpus", at("corpus_same_size.txt"), "--out", at("char_x.safetensors")}, 1, "is not the text it was trained on"},
        {"char model, a corpus with characters it never saw", {"train", "--resume", chars, "--steps", "6", "--corpus", at("corpus_other_chars.txt"), "--out", at("char_x.safetensors")}, 1, "is not the text it was trained on"},
        {"inference-only checkpoint", {"train", "--resume", at("inference.safetensors"), "--steps", "9"}, 1, "holds no training state"},
        {"negative step", {"train", "--resume", at("neg_step.safetensors"), "--steps", "9"}, 1, "step -50 is outside [0, 1000000000]"},
    });
}

TEST_CASE("tinygpt: a resumed run writes back to its own checkpoint and names its task", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string mh = at("mh_resume.safetensors");
    fs::copy_file(at("mh.safetensors"), mh, fs::copy_options::overwrite_existing);
    write_file_atomic(at("mh_resume.loss.csv"), "step,loss\ngarbage,x\n");  // a corrupt CSV is rewritten, not read
    // The default --out of a fresh run (from --model's default, causal) must not be touched.
    const fs::path causal_default = fs::path(ATTNLAB_SOURCE_DIR) / "out/checkpoints/causal_model.safetensors";
    const bool existed = fs::exists(causal_default);
    const auto stamp = existed ? fs::last_write_time(causal_default) : fs::file_time_type();
    const auto r = tinygpt({"train", "--resume", mh, "--steps", "6"});
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Contains("tinygpt train: multi-head, seed 0, 6 steps -> " + mh));
    CHECK(nn::load_checkpoint(mh).step == 6);
    CHECK(read_file(at("mh_resume.loss.csv")).starts_with("step,loss,val_loss\n1,"));
    CHECK_THAT(read_file(at("mh_resume.loss.csv")), Contains("\n6,"));
    CHECK(fs::exists(causal_default) == existed);
    if (existed) CHECK(fs::last_write_time(causal_default) == stamp);
    // The character model resumes from its corpus under another name, if the text is the same.
    const auto moved = tinygpt({"train", "--resume", at("char.safetensors"), "--steps", "6", "--corpus", at("corpus_moved.txt"),
                                "--out", at("char_moved.safetensors")});
    INFO(moved.output);
    CHECK(moved.exit_code == 0);
    CHECK_THAT(moved.output, Contains("characters of '" + at("corpus_moved.txt") + "'"));
}

TEST_CASE("tinygpt: divergence stops the run and keeps the file at --out", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string out = at("diverge.safetensors");
    fs::copy_file(at("ck.safetensors"), out, fs::copy_options::overwrite_existing);
    const std::string before = read_file(out);
    const auto refused = tinygpt(tiny_train({"--steps", "20", "--lr", "1e6", "--out", out}));
    CHECK_THAT(refused.output, Contains("holds another run's checkpoint (total_steps 4 there, 20 in this run)"));
    const auto r = tinygpt(tiny_train({"--steps", "20", "--lr", "1e6", "--out", out, "--overwrite"}));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("diverged at step") && Contains("peak 1e+06") && Contains("was not written"));
    CHECK(read_file(out) == before);
    run_cases({
        {"NaN weights: generate", {"generate", "--checkpoint", at("nan.safetensors"), "--prompt", "the cat"}, 1, "tensor 'head.weight' holds nan at element 0"},
        {"NaN weights: eval", {"eval", "--checkpoint", at("nan.safetensors"), "--prompt", "the cat"}, 1, "holds nan"},
    });
}

TEST_CASE("tinygpt: files it reads and writes, and messages", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    const std::vector<std::string> eval{"eval", "--checkpoint", ck, "--prompt", "the cat sat"};
    auto with = [](std::vector<std::string> a, const std::vector<std::string>& more) {
        a.insert(a.end(), more.begin(), more.end());
        return a;
    };
    run_cases({
        {"checkpoint is a directory", {"eval", "--checkpoint", at("adir"), "--prompt", "the"}, 2, "--checkpoint '" + at("adir") + "' is a directory"},
        {"checkpoint is a FIFO (must not hang)", {"eval", "--checkpoint", at("fifo"), "--prompt", "the"}, 2, "is not a regular file"},
        {"checkpoint is /proc/self/status", {"generate", "--checkpoint", "/proc/self/status", "--prompt", "the"}, 2, "'/proc/self/status' is empty"},
        {"checkpoint missing", {"eval", "--checkpoint", at("nope.safetensors"), "--prompt", "the"}, 2, "No such file or directory"},
        {"checkpoint is empty", {"eval", "--checkpoint", at("empty.txt"), "--prompt", "the"}, 2, "is empty"},
        {"checkpoint is not one", {"eval", "--checkpoint", at("corpus.txt"), "--prompt", "the"}, 1, "corpus.txt"},
        {"resume from a directory", {"train", "--resume", at("adir")}, 2, "--resume '" + at("adir") + "' is a directory"},
        {"resume from a FIFO", {"train", "--resume", at("fifo")}, 2, "is not a regular file"},
        {"corpus is a directory", {"train", "--corpus", at("adir")}, 2, "--corpus '" + at("adir") + "' is a directory"},
        {"corpus is a FIFO", {"train", "--corpus", at("fifo")}, 2, "is not a regular file"},
        {"corpus is /proc/self/status", {"train", "--corpus", "/proc/self/status"}, 2, "is empty"},
        {"corpus is empty", {"train", "--corpus", at("empty.txt")}, 2, "is empty"},
        {"corpus with --model multi-head", {"train", "--corpus", at("corpus.txt"), "--model", "multi-head"}, 2, "--model multi-head (masked-token) needs --tokens words"},
        {"corpus with --model causal is the char model", tiny_train({"--corpus", at("corpus.txt"), "--model", "causal", "--out", at("char_causal.safetensors")}), 0, "characters of"},
        {"--out empty", {"train", "--out", ""}, 2, "--out '': an empty path names no file or folder"},
        {"--out is a directory", {"train", "--out", at("adir")}, 2, "--out '" + at("adir") + "' is a directory"},
        {"--out is /dev/null", {"train", "--out", "/dev/null"}, 2, "exists and is not a regular file"},
        {"--out is the corpus", tiny_train({"--corpus", at("corpus.txt"), "--out", at("corpus.txt")}), 2, "is the corpus"},
        {"both dumps one path", with(eval, {"--dump-logits", at("d.npy"), "--dump-attention", at("d.npy")}), 2, "are the same file"},
        {"both dumps one file, two spellings", with(eval, {"--dump-logits", at("d.npy"), "--dump-attention", dir() + "/./adir/../d.npy"}), 2, "are the same file"},
        {"dump over the checkpoint", with(eval, {"--dump-logits", ck}), 2, "is the checkpoint; it would be overwritten"},
        {"dump into a directory", with(eval, {"--dump-attention", at("adir")}), 2, "is a directory"},
        {"dump over /dev/null", with(eval, {"--dump-logits", "/dev/null"}), 2, "is a character device; only a regular file is ever replaced"},
        {"two dumps", with(eval, {"--dump-logits", at("l.npy"), "--dump-attention", at("a.npy")}), 0, "mean loss"},
        {"temperature 1e-320 is tiny but valid", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--temperature", "1e-320"}, 0, "the cat"},
        {"temperature -1", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "-1"}, 2, "--temperature '-1': must be between 0 and 1000"},
        {"temperature nan", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "nan"}, 2, "--temperature 'nan': not a finite number"},
        {"temperature 1e-400 would be 0", {"generate", "--checkpoint", ck, "--prompt", "the", "--temperature", "1e-400"}, 2, "--temperature '1e-400': not a finite number"},
        {"generate from a masked-token model", {"generate", "--checkpoint", at("mh.safetensors"), "--prompt", "the"}, 1, "is a bidirectional (multi-head) model"},
        {"unknown word", {"generate", "--checkpoint", ck, "--prompt", "the zebra"}, 1, "unknown word 'zebra'; nearest known words: "},
        {"character outside the vocabulary", {"generate", "--checkpoint", at("char.safetensors"), "--prompt", "the Zq"}, 1, "is not in the vocabulary of the checkpoint"},
    });
}

// Every field of a checkpoint is checked before use, and the error names the file and the
// field: never a silent fallback (a bidirectional model, moments restarted at zero), never
// blamed on --prompt.
TEST_CASE("tinygpt: each checkpoint field is checked and named", "[tools][tinygpt][cli][bad-input]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    const auto meta_edit = [&](const std::string& name, const std::string& key, const std::string& value) {
        rewrite(ck, at(name), {{key, value}});
        return at(name);
    };
    const std::string causal_True = meta_edit("causal_True.safetensors", "causal", "True");
    const std::string causal_empty = meta_edit("causal_empty.safetensors", "causal", "");
    const std::string scaled_yes = meta_edit("scaled_yes.safetensors", "scaled", "yes");
    const std::string kind = meta_edit("kind_gpt.safetensors", "kind", "gpt");
    const std::string vocab_dup = at("vocab_dup.safetensors");
    rewrite_with(ck, vocab_dup, [](SafetensorsFile& f) {
        Json v = parse_json(f.metadata.at("vocab"), "vocab");
        v.as_array()[5] = v.as_array()[4];  // two ids, one word
        f.metadata["vocab"] = to_json(v);
    });
    const std::string renamed = at("optim_renamed.safetensors"), truncated = at("optim_truncated.safetensors");
    const std::string no_optim = at("optim_none.safetensors");
    rewrite_with(ck, renamed, [](SafetensorsFile& f) {
        for (NamedTensor& t : f.tensors)
            if (t.name.starts_with("optim.exp_avg.")) t.name = "optim.exq_avg." + t.name.substr(14);
    });
    rewrite_with(ck, truncated, [](SafetensorsFile& f) {
        const auto last = std::find_if(f.tensors.rbegin(), f.tensors.rend(), [](const NamedTensor& t) { return t.name.starts_with("optim."); });
        f.tensors.erase(std::next(last).base());
    });
    rewrite_with(ck, no_optim, [](SafetensorsFile& f) {
        std::erase_if(f.tensors, [](const NamedTensor& t) { return t.name.starts_with("optim."); });
    });
    const auto curve = [&](const std::string& name, double value, int column) {
        rewrite_with(ck, at(name), [&](SafetensorsFile& f) {
            for (NamedTensor& t : f.tensors)
                if (t.name == "train.loss_curve") t.tensor.data_ptr<double>()[3 + column] = value;  // row 1
        });
        return at(name);
    };
    const std::string curve_nan = curve("curve_nan.safetensors", NAN, 1), curve_inf = curve("curve_inf.safetensors", INFINITY, 2);
    const std::string curve_neg_inf = curve("curve_neg_inf.safetensors", -INFINITY, 1);
    run_cases({
        {"causal True: not a bidirectional model", {"generate", "--checkpoint", causal_True, "--prompt", "the"}, 1, "metadata 'causal' is 'True', not true or false"},
        {"causal True: not resumed as one", {"train", "--resume", causal_True, "--steps", "6"}, 1, "causal_True.safetensors': metadata 'causal' is 'True'"},
        {"causal empty", {"eval", "--checkpoint", causal_empty, "--prompt", "the cat"}, 1, "metadata 'causal' is '', not true or false"},
        {"scaled yes", {"eval", "--checkpoint", scaled_yes, "--prompt", "the cat"}, 1, "metadata 'scaled' is 'yes', not true or false"},
        {"unknown kind, eval: the file is named, not --prompt", {"eval", "--checkpoint", kind, "--prompt", "the cat"}, 1, "--checkpoint '" + kind + "': metadata 'kind': unknown checkpoint kind 'gpt'"},
        {"unknown kind, generate", {"generate", "--checkpoint", kind, "--prompt", "the cat"}, 1, "metadata 'kind': unknown checkpoint kind 'gpt'"},
        {"unknown kind, show", {"show", "--checkpoint", kind, "--prompt", "the cat", "--out", at("show_x")}, 1, "metadata 'kind'"},
        {"unknown kind, resume", {"train", "--resume", kind, "--steps", "6"}, 1, "kind_gpt.safetensors' metadata 'kind': unknown checkpoint kind 'gpt'"},
        {"vocabulary repeats a word", {"generate", "--checkpoint", vocab_dup, "--prompt", "the cat"}, 1, "vocab_dup.safetensors': vocab repeats"},
        {"vocabulary repeats, eval", {"eval", "--checkpoint", vocab_dup, "--prompt", "the"}, 1, "(ids 4 and 5)"},
        {"optimizer state renamed", {"train", "--resume", renamed, "--steps", "6"}, 1, "optimizer state 'optim.exq_avg."},
        {"optimizer state renamed, also for inference", {"eval", "--checkpoint", renamed, "--prompt", "the"}, 1, "is no AdamW buffer (exp_avg or exp_avg_sq)"},
        {"optimizer state truncated", {"train", "--resume", truncated, "--steps", "6"}, 1, "' is missing ("},
        {"optimizer state absent", {"train", "--resume", no_optim, "--steps", "6"}, 1, "holds no optimizer state"},
        {"loss curve NaN", {"train", "--resume", curve_nan, "--steps", "6"}, 1, "loss_curve row 1 (step 2) has loss nan"},
        {"loss curve -inf", {"train", "--resume", curve_neg_inf, "--steps", "6"}, 1, "has loss -inf"},
        {"val_loss inf", {"train", "--resume", curve_inf, "--steps", "6"}, 1, "val_loss inf"},
    });
    // An inference-only copy without the optimizer still loads: the state is all there or absent.
    CHECK(tinygpt({"eval", "--checkpoint", no_optim, "--prompt", "the cat"}).exit_code == 0);
}

// A corpus is checked when read, before the first training step.
TEST_CASE("tinygpt train: a corpus is validated before any step", "[tools][tinygpt][cli][bad-input]") {
    make_fixtures();
    write_file_atomic(at("latin1.txt"), corpus_text(0) + "caf\xe9 au lait\n" + corpus_text(1));
    write_file_atomic(at("nul.txt"), corpus_text(0) + std::string("a\0b\n", 4) + corpus_text(1));
    write_file_atomic(at("one_word.txt"), "cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat cat\n");
    write_file_atomic(at("one_char.txt"), std::string(300, 'a'));
    run_cases({
        {"invalid UTF-8, words", tiny_train({"--corpus", at("latin1.txt"), "--tokens", "words", "--steps", "100", "--out", at("x.safetensors")}), 1,
         "corpus '" + at("latin1.txt") + "' is not UTF-8 text: invalid byte sequence at byte offset 483"},
        {"invalid UTF-8, chars", tiny_train({"--corpus", at("latin1.txt"), "--out", at("x.safetensors")}), 1, "is not UTF-8 text"},
        {"invalid UTF-8, masked-token words", tiny_train({"--corpus", at("latin1.txt"), "--tokens", "words", "--model", "multi-head", "--out", at("x.safetensors")}), 1, "byte offset 483"},
        {"a NUL byte, words", tiny_train({"--corpus", at("nul.txt"), "--tokens", "words", "--out", at("x.safetensors")}), 1, "holds a NUL byte at byte offset 481"},
        {"a NUL byte, chars", tiny_train({"--corpus", at("nul.txt"), "--out", at("x.safetensors")}), 1, "a binary file, not text"},
        {"one distinct word", tiny_train({"--corpus", at("one_word.txt"), "--tokens", "words", "--out", at("x.safetensors")}), 1, "has 1 distinct words, fewer than the 2"},
        {"one distinct character", tiny_train({"--corpus", at("one_char.txt"), "--out", at("x.safetensors")}), 1, "has 1 distinct characters"},
    });
    for (const char* out : {"x.safetensors", "x.loss.csv"}) CHECK_FALSE(fs::exists(at(out)));  // no step ran
}

// Generation says why it stopped; empty prompts are errors that name the flag.
TEST_CASE("tinygpt generate and eval: what happened, and empty prompts", "[tools][tinygpt][cli][bad-input]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors"), chars = at("char.safetensors");
    run_cases({
        {"past the context: says so", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "200"}, 0, "5 of 200 tokens: the context of 8 positions is full"},
        {"as many as asked", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "2"}, 0, "2 tokens, as many as asked"},
        {"a character model past its context", {"generate", "--checkpoint", chars, "--prompt", "the", "--tokens", "50"}, 0, "5 of 50 tokens: the context of 8 positions is full"},
        {"the prompt fills the context", {"generate", "--checkpoint", ck, "--prompt", "the cat sat on the mat the"}, 1, "--prompt 'the cat sat on the mat the' is 8 tokens and '" + ck + "' has a context of 8: no position is left"},
        {"the prompt is past the context", {"generate", "--checkpoint", chars, "--prompt", "the cat sat"}, 1, "is 11 tokens and"},
        {"generate --prompt ''", {"generate", "--checkpoint", ck, "--prompt", ""}, 2, "--prompt is empty"},
        {"eval --prompt ''", {"eval", "--checkpoint", ck, "--prompt", ""}, 2, "--prompt is empty"},
        {"show --prompt ''", {"show", "--checkpoint", ck, "--prompt", "", "--out", at("show_x")}, 2, "--prompt is empty"},
        {"eval --prompt of spaces, word model", {"eval", "--checkpoint", ck, "--prompt", "   "}, 1, "--prompt '   ' holds no words"},
        {"generate --prompt of spaces, word model", {"generate", "--checkpoint", ck, "--prompt", " \t "}, 1, "holds no words"},
        {"eval --prompt past the context", {"eval", "--checkpoint", chars, "--prompt", "the cat sat"}, 1, "--prompt 'the cat sat' is 11 tokens, more than the context of 8"},
        {"an unknown word names --prompt", {"eval", "--checkpoint", ck, "--prompt", "the zebra"}, 1, "--prompt 'the zebra': WordTokenizer: unknown word 'zebra'"},
    });
}

// show --from-npy and --sentences: work bounded by limits stated in --help, checked from the
// shape before anything is drawn; a file under 2 MB never costs more than 1 GB or 10 s.
TEST_CASE("tinygpt show: limits before work, files checked before use", "[tools][tinygpt][cli][show][bad-input]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");
    save_npy(at("t600.npy"), full({1, 1, 600, 600}, 1.0 / 600));          // 1.4 MB
    save_npy(at("t700.npy"), full({1, 1, 700, 700}, 1.0 / 700));          // 1.96 MB
    save_npy(at("t0.npy"), zeros({1, 1, 0, 0}));
    save_npy(at("l0.npy"), zeros({0, 2, 4, 4}));
    save_npy(at("panels.npy"), full({33, 2, 4, 4}, 0.25));
    save_npy(at("cells.npy"), full({2, 4, 48, 48}, 1.0 / 48));             // (8 + 2) x 48^2 cells: past 2^14
    save_npy(at("t65.npy"), full({1, 1, 65, 65}, 1.0 / 65));
    save_npy(at("t64.npy"), full({1, 1, 64, 64}, 1.0 / 64));             // the largest T, drawn
    save_npy(at("wide.npy"), full({1, 64, 12, 12}, 1.0 / 12));              // 64 heads: 16 rows of 4, not one row
    CHECK(fs::file_size(at("t700.npy")) < 2'000'000);
    write_file_atomic(at("binary_sentences.txt"), std::string("the cat\n\xff\xfe\x00binary\n", 17));
    write_file_atomic(at("nul_sentences.txt"), std::string("the cat\nthe\0dog\n", 16));
    std::string many;
    for (int i = 0; i < 65; ++i) many += "the cat\n";
    write_file_atomic(at("many_sentences.txt"), many);
    write_file_atomic(at("bad_line.txt"), "the cat\n\nthe zebra\n");
    fs::remove_all(at("show_x"));
    run_cases({
        {"T 600", {"show", "--from-npy", at("t600.npy"), "--out", at("show_x")}, 1, "[1, 1, 600, 600]: [1 layers, 1 heads, 600 tokens] is more than the 64 tokens show draws"},
        {"T 65", {"show", "--from-npy", at("t65.npy"), "--out", at("show_x")}, 1, "65 tokens] is more than the 64 tokens"},
        {"T 0", {"show", "--from-npy", at("t0.npy"), "--out", at("show_x")}, 1, "[1 layers, 1 heads, 0 tokens] has nothing to draw"},
        {"L 0", {"show", "--from-npy", at("l0.npy"), "--out", at("show_x")}, 1, "[0 layers, 2 heads, 4 tokens] has nothing to draw"},
        {"66 panels", {"show", "--from-npy", at("panels.npy"), "--out", at("show_x")}, 1, "is 33 x 2 panels, more than the 64 show draws"},
        {"too many cells", {"show", "--from-npy", at("cells.npy"), "--out", at("show_x")}, 1, "is 23040 heatmap cells ((L x H + 2) x T^2), more than the 16384 show draws"},
        {"the limits are in --help", {"show", "--help"}, 0, "T <= 64, L x H <= 64, (L x H + 2) x T^2 <= 16384"},
        {"binary --sentences: the file, not --prompt", {"show", "--checkpoint", ck, "--sentences", at("binary_sentences.txt"), "--out", at("show_x")}, 1, "--sentences '" + at("binary_sentences.txt") + "' is not UTF-8 text: invalid byte sequence at byte offset 8"},
        {"--sentences with a NUL", {"show", "--checkpoint", ck, "--sentences", at("nul_sentences.txt"), "--out", at("show_x")}, 1, "holds a NUL byte at byte offset 11"},
        {"65 sentences", {"show", "--checkpoint", ck, "--sentences", at("many_sentences.txt"), "--out", at("show_x")}, 1, "has more than 64 sentences (line 65)"},
        {"a bad word names its line", {"show", "--checkpoint", ck, "--sentences", at("bad_line.txt"), "--out", at("show_x")}, 1, "--sentences '" + at("bad_line.txt") + "' line 3 'the zebra': WordTokenizer: unknown word 'zebra'"},
    });
    CHECK_FALSE(fs::exists(at("show_x/attention_heads.svg")));  // nothing drawn, nothing half-written
    run_cases({{"64 heads wrap to rows of 4", {"show", "--from-npy", at("wide.npy"), "--out", at("show_wide")}, 0,
                "attention_heads.svg"}});
#if !defined(__SANITIZE_ADDRESS__)
    // The largest file a user might hand it, under 1 GB of address space and 10 s.
    for (const char* npy : {"t600.npy", "t700.npy", "t64.npy", "cells.npy"}) {
        const auto start = std::chrono::steady_clock::now();
        const auto r = run_program({"/bin/bash", "-c", "ulimit -v 1048576; exec \"$0\" show --from-npy \"$1\" --out \"$2\"",
                                    testing::program_path("tinygpt"), at(npy), at(std::string("show_") + npy)},
                                   10);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        INFO(npy << ": " << r.output);
        CHECK_FALSE(r.timed_out);
        CHECK(seconds < 10);
        CHECK(r.exit_code == (std::string(npy) == "t64.npy" ? 0 : 1));
        CHECK_THAT(r.output, !Contains("out of memory"));
    }
    CHECK(fs::file_size(at("show_t64.npy/attention_heads.png")) > 1000);
#endif
    // --sentences shares one budget among its texts, checked before the first is drawn.
    const std::string wide = at("context64.safetensors");
    REQUIRE(tinygpt({"train", "--steps", "2", "--d-model", "16", "--heads", "2", "--layers", "1", "--context", "64", "--batch", "2",
                     "--eval-every", "2", "--warmup", "1", "--out", wide}).exit_code == 0);
    std::string long_line;
    for (int i = 0; i < 10; ++i) long_line += "the cat sat on the mat ";
    write_file_atomic(at("long_sentences.txt"), long_line + "\n" + long_line + "\n" + long_line + "\n");
    fs::remove_all(at("show_long"));
    run_cases({
        {"three long sentences", {"show", "--checkpoint", wide, "--sentences", at("long_sentences.txt"), "--out", at("show_long")}, 1,
         "its 3 texts are 44652 heatmap cells on this model (1 layers x 2 heads), more than the 32768 one show draws"},
        {"one of them", {"show", "--checkpoint", wide, "--prompt", long_line, "--out", at("show_long")}, 0, "attention_heads"},
    });
    CHECK_FALSE(fs::exists(at("show_long/sentence_1")));
}

TEST_CASE("tinygpt generate --no-kv-cache: the switch recomputes the prefix, the text is the same", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::vector<std::string> args{"generate", "--checkpoint", at("ck.safetensors"), "--prompt", "the cat", "--tokens", "5"};
    std::vector<std::string> uncached = args;
    uncached.push_back("--no-kv-cache");
    const testing::ProgramRun a = tinygpt(args), b = tinygpt(uncached);
    INFO(a.output << "\n" << b.output);
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    CHECK_THAT(a.output, Contains("(KV cache)"));
    CHECK_THAT(b.output, Contains("(no cache)"));
    // stdout (the text) and stderr (the timing) interleave in either order: compare the text's line.
    const auto text = [](const std::string& out) {
        const std::size_t at_text = out.find("the cat");
        return at_text == std::string::npos ? std::string() : out.substr(at_text, out.find('\n', at_text) - at_text);
    };
    CHECK(text(a.output).size() > std::string("the cat").size());
    CHECK(text(a.output) == text(b.output));
}

TEST_CASE("tinygpt train: AdamW's betas and the final learning rate are flags, recorded and used", "[tools][tinygpt][cli]") {
    make_fixtures();
    const auto meta = [](const std::string& path) { return nn::load_checkpoint(path).metadata; };
    const auto weights = [](const std::string& path) { return load_safetensors(path).at("head.weight"); };
    const std::string plain = at("betas_default.safetensors"), betas = at("betas.safetensors"), ratio = at("min_lr.safetensors");
    run_cases({
        {"defaults", tiny_train({"--out", plain}), 0, "wrote"},
        {"--beta1 0.8 --beta2 0.99", tiny_train({"--beta1", "0.8", "--beta2", "0.99", "--out", betas}), 0, "wrote"},
        {"--min-lr-ratio 0", tiny_train({"--min-lr-ratio", "0", "--steps", "6", "--out", ratio}), 0, "wrote"},
        {"--beta1 1", {"train", "--beta1", "1"}, 2, "--beta1 needs a number in [0, 1), got '1'"},
        {"--beta2 -0.5", {"train", "--beta2", "-0.5"}, 2, "--beta2 needs a number in [0, 1), got '-0.5'"},
        {"--min-lr-ratio 2", {"train", "--min-lr-ratio", "2"}, 2, "--min-lr-ratio needs a number in [0, 1], got '2'"},
        {"--beta2 contradicts on resume", {"train", "--resume", betas, "--steps", "6", "--beta2", "0.999"}, 2, "trained with beta2 0.99"},
    });
    CHECK(meta(plain).at("beta1") == "0.9");
    CHECK(meta(plain).at("beta2") == "0.999");
    CHECK(meta(plain).at("min_lr_ratio") == "0.1");
    CHECK(meta(betas).at("beta1") == "0.8");
    CHECK(meta(betas).at("beta2") == "0.99");
    CHECK(meta(ratio).at("min_lr_ratio") == "0");
    // The betas reach the optimizer: the same seed and data with other betas give other weights.
    const Tensor a = weights(plain), b = weights(betas);
    REQUIRE(a.shape() == b.shape());
    CHECK(max(abs(sub(a, b))).item() > 0);
}

TEST_CASE("tinygpt generate --slide goes past the context; --top-p samples a nucleus", "[tools][tinygpt][cli]") {
    make_fixtures();
    const std::string ck = at("ck.safetensors");  // context 8
    run_cases({
        {"without --slide it stops at the context", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "20"}, 0, "the context of 8 positions is full"},
        {"--slide goes on", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "20", "--slide"}, 0, "then a sliding window"},
        {"a prompt as long as the context", {"generate", "--checkpoint", ck, "--prompt", "the cat sat on the mat the cat", "--tokens", "3"}, 1, "--slide keeps the last 7"},
        {"--slide with that prompt", {"generate", "--checkpoint", ck, "--prompt", "the cat sat on the mat the cat", "--tokens", "3", "--slide"}, 0, "3 tokens, as many as asked"},
        {"--top-p 0.9", {"generate", "--checkpoint", ck, "--prompt", "the cat", "--tokens", "3", "--temperature", "1", "--top-p", "0.9"}, 0, "the cat"},
        {"--top-p 0", {"generate", "--checkpoint", ck, "--prompt", "the", "--top-p", "0"}, 2, "--top-p"},
        {"--top-p 1.5", {"generate", "--checkpoint", ck, "--prompt", "the", "--top-p", "1.5"}, 2, "--top-p"},
        {"--slide takes no value", {"generate", "--checkpoint", ck, "--prompt", "the", "--slide", "yes"}, 2, "--slide is a switch"},
    });
}

TEST_CASE("a word model's vocabulary shorter than its special tokens is named, not read past its end", "[tools][tinygpt][cli]") {
    // The fuzz seed: a causal checkpoint whose vocabulary is <pad>, a, b (no <bos>, <eos>, [MASK]).
    const std::string ck = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fuzz/corpus/checkpoint/tiny.safetensors";
    run_cases({
        {"eval", {"eval", "--checkpoint", ck, "--prompt", "a b"}, 1, "opens with 4 special tokens and then its words; this one has 3 entries"},
        {"generate", {"generate", "--checkpoint", ck, "--prompt", "a"}, 1, "this one has 3 entries"},
    });
}
