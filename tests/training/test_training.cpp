// test_training.cpp — the training loop end to end on tiny models: determinism, resume
// (only steps may change; the curve and the data stay the run's), divergence, limits.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>

#include "autograd/node.hpp"
#include "training/run_config.hpp"
#include "training/train.hpp"
#include "nn/checkpoint.hpp"
#include "autograd/node.hpp"
#include "nn/generate.hpp"
#include "io/fileio.hpp"
#include "tensor/ops.hpp"
#include "tests/support/tensor_matchers.hpp"

using namespace attnlab;
using namespace attnlab::lab;
using attnlab::testing::bit_identical;
using attnlab::testing::IsCloseTo;

namespace {

std::string tmp(const std::string& name) { return std::string(ATTNLAB_SOURCE_DIR) + "/build/test_tmp/training/" + name; }

TrainConfig tiny(Task task, std::int64_t steps) {
    TrainConfig c;
    c.task = task, c.steps = steps, c.d_model = 16, c.n_heads = 2, c.n_layers = 1, c.context = 12, c.batch = 4;
    c.eval_every = 5, c.val_batches = 2, c.warmup = 3, c.progress = TrainConfig::Progress::quiet;
    return c;
}

bool same_curve(const std::vector<TrainPoint>& a, const std::vector<TrainPoint>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].step != b[i].step || a[i].loss != b[i].loss) return false;  // exact: same bits
    return true;
}

// A char corpus of `n` lines; `variant` changes the text but not its length or alphabet.
std::string corpus_file(const std::string& name, int variant = 0) {
    std::string text;
    for (int i = 0; i < 40; ++i) text += variant == 0 ? "the cat sat on the mat.\n" : "the mat sat on the cat.\n";
    write_file_atomic(tmp(name), text);
    return tmp(name);
}

// Runs `c` stopped at `stop` steps, writing `out` (a new file unless it resumes: what an earlier
// test run left there is another run's checkpoint, which train() would refuse to replace).
void run_until(TrainConfig c, std::int64_t stop, const std::string& out, const std::string& resume = "") {
    if (resume.empty()) std::filesystem::remove(out);
    c.stop_after = stop, c.out = out, c.resume = resume;
    train(c);
}

}  // namespace

TEST_CASE("training lowers the loss toward the floor, and the same seed repeats it exactly", "[lab][train]") {
    TrainResult a = train(tiny(Task::causal, 100)), b = train(tiny(Task::causal, 100));
    CHECK(same_curve(a.curve, b.curve));
    INFO("validation loss " << a.final_eval.loss << ", floor " << a.final_eval.floor);
    CHECK(a.curve.front().loss == Approx(std::log(109.0)).margin(0.1));  // an untrained model is uniform
    CHECK(a.final_eval.loss < std::log(109.0) - 0.6);                    // measured: 3.73 after 100 steps
    CHECK(a.final_eval.loss > a.final_eval.floor);            // nobody beats the Bayes floor
    // The last step's evaluation is the run's final one: the returned weights, evaluated again,
    // give it bit for bit.
    CHECK(evaluate(*a.model, Task::causal, 4, 2).loss == a.final_eval.loss);
    TrainConfig other = tiny(Task::causal, 100);
    other.seed = 1;
    CHECK_FALSE(same_curve(a.curve, train(other).curve));
}

TEST_CASE("a resumed run continues the loss curve exactly", "[lab][train][checkpoint]") {
    for (Task task : {Task::causal, Task::multi_head}) {
        INFO("task " << info(task).cli);
        TrainConfig whole = tiny(task, 20);
        TrainResult uninterrupted = train(whole);

        const std::string out = tmp(std::string("resume_") + info(task).model_name + ".safetensors");
        run_until(whole, 10, out);  // killed after step 10; its checkpoint of step 10 remains
        TrainConfig second = whole;
        second.resume = second.out = out;
        TrainResult rest = train(second);
        std::vector<TrainPoint> tail(uninterrupted.curve.begin() + 10, uninterrupted.curve.end());
        CHECK(same_curve(rest.curve, tail));
        CHECK(rest.start_step == 10);
        // The checkpoint holds the whole curve, and the CSV beside it is that curve.
        const StoredRun stored = stored_run(nn::load_checkpoint(out), out);
        CHECK(same_curve(stored.curve, uninterrupted.curve));
        CHECK(read_file(loss_csv_path(out)) == curve_csv(stored.curve));
    }
}

TEST_CASE("the checkpoint records the whole run, and resume restores it", "[lab][train][checkpoint]") {
    TrainConfig c = tiny(Task::multi_head, 6);
    c.lr = 0.0025, c.weight_decay = 0.02, c.clip = 0.5, c.mask_prob = 0.2, c.seed = 7, c.warmup = 2, c.eval_every = 3;
    const std::string out = tmp("recorded.safetensors");
    run_until(c, 3, out);
    const StoredRun run = stored_run(nn::load_checkpoint(out), out);
    CHECK(run.step == 3);
    CHECK(run.config.task == Task::multi_head);
    for (const RunSetting& s : run_settings()) {
        INFO(s.key);
        CHECK(setting_text(run.config, s) == setting_text(c, s));
    }
    CHECK(differences(run.config, c).empty());
    CHECK(run.curve.size() == 3);
}

TEST_CASE("resume refuses a run that differs from the checkpoint's, naming both values", "[lab][train][checkpoint][errors]") {
    const TrainConfig c = tiny(Task::causal, 10);
    const std::string out = tmp("refuse.safetensors");
    run_until(c, 5, out);
    const std::string before = read_file(out);
    auto resume_with = [&](TrainConfig changed) {
        changed.resume = changed.out = out;
        train(changed);
    };
    TrainConfig lr = c;
    lr.lr = 0.01;
    CHECK_THROWS_WITH(resume_with(lr), Catch::Contains("lr is 0.003 in the checkpoint but 0.01 was asked"));
    TrainConfig seed = c;
    seed.seed = 7;
    CHECK_THROWS_WITH(resume_with(seed), Catch::Contains("seed is 0 in the checkpoint but 7"));
    TrainConfig layers = c;
    layers.n_layers = 2;
    CHECK_THROWS_WITH(resume_with(layers), Catch::Contains("n_layers is 1 in the checkpoint but 2"));
    TrainConfig task = c;
    task.task = Task::multi_head;
    CHECK_THROWS_WITH(resume_with(task), Catch::Contains("task is causal in the checkpoint but multi-head"));
    TrainConfig shorter = c;
    shorter.steps = 5;
    CHECK_THROWS_WITH(resume_with(shorter), Catch::Contains("steps 5 must exceed the checkpoint's step 5"));
    CHECK(read_file(out) == before);  // every refusal left the checkpoint as it was
    TrainConfig longer = c;
    longer.steps = 12;  // extending is the one change allowed
    resume_with(longer);
    CHECK(stored_run(nn::load_checkpoint(out), out).step == 12);
}

TEST_CASE("the loss CSV cannot fall out of step with its checkpoint", "[lab][train][checkpoint]") {
    const TrainConfig c = tiny(Task::causal, 20);
    const std::string out = tmp("csv_sync.safetensors"), csv = loss_csv_path(out);
    run_until(c, 5, out);
    const std::string csv_at_5 = read_file(csv);
    run_until(c, 10, out, out);
    SECTION("killed between the checkpoint's rename and the CSV's: the CSV is a step behind") {
        write_file_atomic(csv, csv_at_5);
    }
    SECTION("the CSV is corrupt") { write_file_atomic(csv, "step,loss\nnot,a,number\n"); }
    SECTION("the CSV is gone") { std::filesystem::remove(csv); }
    run_until(c, 20, out, out);
    const std::string whole_out = tmp("csv_sync_whole.safetensors");
    run_until(c, 20, whole_out);
    CHECK(read_file(csv) == read_file(loss_csv_path(whole_out)));  // steps 1..20, as if never interrupted
}

TEST_CASE("a character model resumes only on the text it was trained on", "[lab][train][checkpoint][errors]") {
    TrainConfig c = tiny(Task::chars, 10);
    c.corpus = corpus_file("corpus_a.txt");
    const std::string out = tmp("chars.safetensors");
    run_until(c, 5, out);
    TrainConfig again = c;
    again.resume = again.out = out;
    SECTION("same size, other text") {
        again.corpus = corpus_file("corpus_b.txt", 1);
        CHECK(read_file(again.corpus).size() == read_file(c.corpus).size());
        CHECK_THROWS_WITH(train(again), Catch::Contains("is not the text it was trained on") && Catch::Contains("FNV-1a"));
    }
    SECTION("the same text under another name resumes") {
        again.corpus = tmp("corpus_a_moved.txt");
        write_file_atomic(again.corpus, read_file(c.corpus));
        CHECK(train(again).start_step == 5);
    }
    SECTION("the file changed under the same name") {
        corpus_file("corpus_a.txt", 1);
        CHECK_THROWS_WITH(train(again), Catch::Contains("is not the text it was trained on"));
    }
}

TEST_CASE("divergence stops training, names the step, and keeps the last good checkpoint", "[lab][train][errors]") {
    const std::string out = tmp("diverge.safetensors");
    SECTION("a huge learning rate: nothing is written over an existing file, even one it may replace") {
        write_file_atomic(out, "precious");
        TrainConfig c = tiny(Task::causal, 20);
        c.lr = 1e6, c.warmup = 0, c.out = out;
        CHECK_THROWS_WITH(train(c), Catch::Contains("'" + out + "' holds text, not a checkpoint; it is left alone"));
        c.overwrite = true;
        CHECK_THROWS_AS(train(c), TrainingDiverged);
        CHECK_THROWS_WITH(train(c), Catch::Contains("diverged at step") && Catch::Contains("peak 1e+06") &&
                                        Catch::Contains("was not written"));
        CHECK(read_file(out) == "precious");
    }
    SECTION("weights poisoned after the checkpoint of step 5: the run stops at step 6, step 5 stays") {
        std::filesystem::remove(out);
        TrainConfig c = tiny(Task::causal, 20);
        c.out = out;
        c.on_eval = [](std::int64_t step, nn::Transformer& m) {
            if (step == 5) m.head.weight.detach().data_ptr<float>()[3] = NAN;
        };
        CHECK_THROWS_WITH(train(c), Catch::Contains("diverged at step 6: the loss is nan") &&
                                        Catch::Contains("keeps step 5"));
        const nn::LoadedCheckpoint kept = nn::load_checkpoint(out);  // finite: the loader would refuse NaN
        CHECK(kept.step == 5);
    }
}

TEST_CASE("divergence after a worse evaluation writes the best one back, and its record says so", "[lab][train][errors]") {
    const std::string out = tmp("diverge_best.safetensors");
    std::filesystem::remove(out);
    TrainConfig c = tiny(Task::causal, 30);
    c.out = out;
    c.eval_every = 1;
    c.on_eval = [](std::int64_t step, nn::Transformer& m) {
        NoGradGuard no_grad;
        float* w = m.head.weight.detach().data_ptr<float>();
        // A worse model, finite: with the output layer zeroed every token is equally likely, so
        // step 11 evaluates near ln V, above step 10's loss (still below twice it).
        if (step == 10) std::fill(w, w + m.head.weight.numel(), 0.0f);
        if (step == 11) w[0] = NAN;  // then the run breaks at step 12
    };
    CHECK_THROWS_WITH(train(c), Catch::Contains("diverged at step 12: the loss is nan") &&
                                    Catch::Contains("keeps step 10, the best validation loss"));
    const nn::LoadedCheckpoint kept = nn::load_checkpoint(out);
    CHECK(kept.step == 10);
    CHECK(kept.metadata.at("kept") == "best");
    CHECK(kept.metadata.at("best_step") == "10");
    CHECK(kept.metadata.at("diverged_at") == "12");
    // The record continues to step 11 (the run's last evaluation); the checkpoint's curve ends at 10.
    const std::string csv = read_file(loss_csv_path(out));
    CHECK_THAT(csv, Catch::Contains("\n11,"));
    CHECK(stored_run(kept, out).curve.size() == 10);
    // What it holds is step 10's model itself, as a run stopped there writes it.
    TrainConfig again = tiny(Task::causal, 30);
    again.eval_every = 1;
    again.out = tmp("diverge_best_again.safetensors");
    std::filesystem::remove(again.out);
    again.stop_after = 10;
    train(again);
    const nn::LoadedCheckpoint reference = nn::load_checkpoint(again.out);
    for (const auto& p : reference.model->named_parameters()) {
        INFO(p.name);
        for (const auto& q : kept.model->named_parameters())
            if (q.name == p.name) CHECK(bit_identical(p.tensor, q.tensor));
    }
}

TEST_CASE("training refuses what it cannot do before allocating, naming the setting", "[lab][train][errors]") {
    TrainConfig c = tiny(Task::causal, 5);
    SECTION("limits shared with the loader") {
        c.d_model = 100000;
        CHECK_THROWS_WITH(train(c), Catch::Contains("d_model needs an integer in [1, 4096], got 100000"));
        c.d_model = 16, c.n_layers = 65;
        CHECK_THROWS_WITH(train(c), Catch::Contains("n_layers needs an integer in [1, 64], got 65"));
        c.n_layers = 64, c.d_model = 4096, c.n_heads = 4;  // each within its limit, together 12.9 G parameters
        CHECK_THROWS_WITH(train(c), Catch::Contains("parameters, more than the limit"));
    }
    SECTION("settings out of range") {
        c.lr = NAN;
        CHECK_THROWS_WITH(train(c), Catch::Contains("lr needs a number >= 0, got nan"));
        c.lr = 3e-3, c.mask_prob = 0;
        CHECK_THROWS_WITH(train(c), Catch::Contains("mask_prob needs a number in (0, 1], got 0"));
    }
    SECTION("a task and its data must agree") {
        c.task = Task::single_head;
        CHECK_THROWS_WITH(train(c), Catch::Contains("single-head has 1 head, not n_heads 2"));
        c.task = Task::causal, c.corpus = "x.txt";
        CHECK_THROWS_WITH(train(c), Catch::Contains("trains the char task, not causal"));
        c.task = Task::chars, c.corpus = "";
        CHECK_THROWS_WITH(train(c), Catch::Contains("needs a corpus"));
    }
}

TEST_CASE("the course's knobs change training: unscaled scores, masks, dropout, the bias-free head", "[lab][train]") {
    const TrainConfig base = tiny(Task::causal, 12);
    const TrainResult plain = train(base);

    TrainConfig unscaled = base;
    unscaled.scaled = false;
    CHECK_FALSE(same_curve(train(unscaled).curve, plain.curve));

    // Dropout 0 is no dropout, bit for bit (it draws nothing from the data stream either).
    TrainConfig zero = base;
    zero.dropout = 0.0;
    CHECK(same_curve(train(zero).curve, plain.curve));
    TrainConfig dropped = base;
    dropped.dropout = 0.2;
    const TrainResult d = train(dropped);
    CHECK_FALSE(same_curve(d.curve, plain.curve));
    // ... in training only: evaluation of the trained model is deterministic.
    d.model->train();  // train() leaves it in train mode; evaluate switches to eval itself
    CHECK(evaluate(*d.model, Task::causal, 4, 2).loss == evaluate(*d.model, Task::causal, 4, 2).loss);
    // The fused kernel forms no weights to drop: a training step with dropout runs the composed one, and says why.
    const Tensor ids = zeros({1, 4}, kInt64);
    CHECK_THROWS_WITH(d.model->forward(ids), Catch::Contains("needs set_dropout_generator"));
    Generator gen(3);
    d.model->set_dropout_generator(&gen);
    d.model->forward(ids);
    CHECK(d.model->blocks[0]->attn.last_path().path == nn::AttentionPath::composed);
    CHECK_THAT(d.model->blocks[0]->attn.last_path().reason, Catch::Contains("dropout"));
    d.model->eval();
    d.model->forward(ids);
    CHECK(d.model->blocks[0]->attn.last_path().path == nn::AttentionPath::fused);

    // A local window of 3 in a causal model: query i sees keys i-3..i only.
    TrainConfig local = base;
    local.window = 3;
    const TrainResult l = train(local);
    CHECK_FALSE(same_curve(l.curve, plain.curve));
    const nn::Mask m = l.model->attention_mask(8, 8);
    for (std::int64_t i = 0; i < 8; ++i)
        for (std::int64_t j = 0; j < 8; ++j) {
            INFO("query " << i << ", key " << j);
            CHECK((m.allowed().at({i, j}) == 1) == (j <= i && i - j <= 3));
        }

    // The bias-free single head: W_Q, W_K, W_V of d_model² each, nothing else in attention.
    TrainConfig qkv = tiny(Task::qkv_head, 6);
    qkv.n_heads = 1;
    const TrainResult q = train(qkv);
    std::int64_t attention = 0;
    std::vector<std::string> names;
    for (const auto& p : q.model->named_parameters())
        if (p.name.starts_with("blocks.0.attn.")) attention += p.tensor.numel(), names.push_back(p.name);
    CHECK(attention == 3 * 16 * 16);
    CHECK(names == std::vector<std::string>{"blocks.0.attn.w_q.weight", "blocks.0.attn.w_k.weight", "blocks.0.attn.w_v.weight"});
    CHECK(q.final_eval.loss < q.curve.front().loss);
}

TEST_CASE("a run with dropout, the unscaled head and a mask resumes bit for bit", "[lab][train][checkpoint]") {
    for (Task task : {Task::causal, Task::qkv_head}) {
        INFO("task " << info(task).cli);
        TrainConfig whole = tiny(task, 20);
        whole.dropout = 0.1, whole.scaled = false, whole.window = 4;
        if (task == Task::qkv_head) whole.n_heads = 1;
        const TrainResult uninterrupted = train(whole);
        const std::string out = tmp(std::string("resume_knobs_") + info(task).model_name + ".safetensors");
        run_until(whole, 10, out);
        TrainConfig second = whole;
        second.resume = second.out = out;
        const TrainResult rest = train(second);
        CHECK(same_curve(rest.curve, std::vector<TrainPoint>(uninterrupted.curve.begin() + 10, uninterrupted.curve.end())));
        TrainConfig other = whole;
        other.dropout = 0.2, other.resume = out, other.out = "";
        CHECK_THROWS_WITH(train(other), Catch::Contains("dropout is 0.1 in the checkpoint but 0.2 was asked"));
    }
}

TEST_CASE("a corpus trains at word level, next-token or masked-token, and resumes on its words", "[lab][train][corpus]") {
    const std::string text = corpus_file("words.txt");
    for (Task task : {Task::causal, Task::multi_head}) {
        INFO("task " << info(task).cli);
        TrainConfig c = tiny(task, 30);
        c.corpus = text, c.word_tokens = true;
        const TrainResult r = train(c);
        // The vocabulary is the text's words, sorted, after the four specials.
        CHECK(r.vocab == std::vector<std::string>{"<pad>", "<bos>", "<eos>", "[MASK]", "cat", "mat.", "on", "sat", "the"});
        CHECK(r.final_eval.loss < r.curve.front().loss - 0.25);  // measured: causal 2.2 -> 0.5, multi-head 2.2 -> 1.86
        CHECK(std::isnan(r.final_eval.floor));
        const std::string out = tmp(std::string("words_") + info(task).model_name + ".safetensors");
        run_until(c, 10, out);
        TrainConfig rest = c;
        rest.resume = rest.out = out;
        CHECK(same_curve(train(rest).curve, std::vector<TrainPoint>(r.curve.begin() + 10, r.curve.end())));
        TrainConfig chars = rest;
        chars.word_tokens = false;
        if (task == Task::causal) chars.task = Task::chars;
        CHECK_THROWS_AS(train(chars), ValueError);
    }
    TrainConfig masked_chars = tiny(Task::multi_head, 5);
    masked_chars.corpus = text;
    CHECK_THROWS_WITH(train(masked_chars), Catch::Contains("masked-token models need word tokens"));
    TrainConfig grammar_words = tiny(Task::causal, 5);
    grammar_words.word_tokens = true;
    CHECK_THROWS_WITH(train(grammar_words), Catch::Contains("word tokens need a corpus file"));
}

TEST_CASE("a task has one spelling of each kind, in one table", "[lab][task]") {
    for (Task t : {Task::causal, Task::single_head, Task::multi_head, Task::qkv_head, Task::chars}) {
        INFO(info(t).kind);
        CHECK(task_from_kind(info(t).kind) == t);
        CHECK(task_from_model_name(info(t).model_name) == t);
        if (*info(t).cli) CHECK(task_from_cli(info(t).cli) == t);
    }
    CHECK(cli_choices() == "causal, single-head, multi-head or qkv-head");
    CHECK_THROWS_WITH(task_from_cli("char"), Catch::Contains("unknown model 'char' (expected causal, single-head, multi-head or qkv-head)"));
    CHECK_THROWS_WITH(task_from_kind("single_head"), Catch::Contains("unknown checkpoint kind 'single_head'"));
    CHECK(standard_config(Task::single_head).n_heads == 1);
    CHECK_THROWS_AS(standard_config(Task::chars), ValueError);
}

TEST_CASE("numbers read strictly and print as they are", "[lab][run_config]") {
    CHECK(parse_real("1e-320") == 1e-320);  // subnormal: representable, kept
    CHECK_FALSE(parse_real("1e-400"));      // would silently become 0
    CHECK_FALSE(parse_real("1e400"));
    CHECK_FALSE(parse_real("nan"));
    CHECK_FALSE(parse_real("0.5x"));
    CHECK_FALSE(parse_int64("12.0"));
    CHECK_FALSE(parse_int64("99999999999999999999"));
    CHECK(format_real(0.003) == "0.003");
    CHECK(format_real(1e-320) == "1e-320");
    CHECK(format_real(1e6) == "1e+06");
}

TEST_CASE("cached and uncached decoding agree token for token", "[nn][generate][kvcache]") {
    TrainResult r = train(tiny(Task::causal, 30));
    nn::GenerateOptions o;
    o.max_new_tokens = 8;
    const std::vector<std::int64_t> prompt{1, 4, 10};
    nn::Generation cached = nn::generate(*r.model, prompt, o);
    o.use_kv_cache = false;
    nn::Generation full = nn::generate(*r.model, prompt, o);
    REQUIRE(cached.tokens == full.tokens);
    for (std::size_t i = 0; i < cached.logits.size(); ++i) {
        INFO("step " << i);
        CHECK_THAT(cached.logits[i], IsCloseTo(full.logits[i], 1e-5));
    }
    // Sampling is seeded: the same seed repeats, and stops at the context.
    o.temperature = 1.0, o.top_k = 5, o.max_new_tokens = 100;
    CHECK(nn::generate(*r.model, prompt, o).tokens == nn::generate(*r.model, prompt, o).tokens);
    CHECK(nn::generate(*r.model, prompt, o).tokens.size() == 12 - 3);
    CHECK_THROWS_AS(nn::generate(*r.model, std::vector<std::int64_t>(13, 4), o), ValueError);
    // A temperature that would sample silently wrong is an error, not a distribution.
    for (double t : {double(NAN), -1.0, double(INFINITY)}) {
        o.temperature = t;
        CHECK_THROWS_WITH(nn::generate(*r.model, prompt, o), Catch::Contains("generate: temperature must be a finite number >= 0"));
    }
    o.temperature = 1e-320;  // tiny but valid: the softmax collapses onto the argmax
    o.top_k = 0, o.max_new_tokens = 8;
    CHECK(nn::generate(*r.model, prompt, o).tokens == cached.tokens);
}

TEST_CASE("a sliding window goes past the context, each step on the last context - 1 tokens", "[nn][generate]") {
    TrainResult r = train(tiny(Task::causal, 30));  // context 12
    const std::int64_t context = r.model->config().context;
    nn::GenerateOptions o;
    o.max_new_tokens = 30;
    const std::vector<std::int64_t> prompt{1, 4, 10};
    const nn::Generation stopped = nn::generate(*r.model, prompt, o);
    CHECK(stopped.stop == nn::Stop::context_full);
    o.slide_window = true;
    const nn::Generation slid = nn::generate(*r.model, prompt, o);
    CHECK(slid.stop == nn::Stop::count);
    REQUIRE(slid.tokens.size() == 30);
    // Until the context fills, sliding changes nothing.
    CHECK(std::equal(stopped.tokens.begin(), stopped.tokens.end(), slid.tokens.begin()));
    // After it, each token is the greedy choice of a forward over the window before it.
    std::vector<std::int64_t> seq = prompt;
    seq.insert(seq.end(), slid.tokens.begin(), slid.tokens.end());
    NoGradGuard no_grad;
    r.model->eval();
    for (std::size_t n = static_cast<std::size_t>(context); n < seq.size(); ++n) {
        const std::vector<std::int64_t> window(seq.begin() + static_cast<std::ptrdiff_t>(n - (context - 1)),
                                               seq.begin() + static_cast<std::ptrdiff_t>(n));
        Tensor logits = r.model->forward(from_vector(window, {1, context - 1})).select(0, 0).select(0, -1);
        INFO("token " << n);
        CHECK(argmax(logits, -1).item() == seq[n]);
    }
    // A prompt longer than the context is cropped to its last context - 1 tokens.
    CHECK(nn::generate(*r.model, std::vector<std::int64_t>(20, 4), o).tokens.size() == 30);
}

TEST_CASE("top-p keeps the fewest most likely tokens whose probability reaches p", "[nn][generate]") {
    // Probabilities 0.5, 0.3, 0.2 (log-space logits): p = 0.5 keeps one token, p = 0.7 two, p = 1 all three.
    const Tensor logits = from_vector(std::vector<double>{std::log(0.2), std::log(0.5), std::log(0.3)}, {3});
    const auto seen = [&](double p) {
        nn::GenerateOptions o;
        o.temperature = 1, o.top_p = p;
        Generator gen(3);
        std::set<std::int64_t> ids;
        for (int i = 0; i < 400; ++i) ids.insert(nn::choose_token(logits, o, gen));
        return ids;
    };
    CHECK(seen(0.5) == std::set<std::int64_t>{1});
    CHECK(seen(0.7) == std::set<std::int64_t>{1, 2});
    CHECK(seen(1.0) == std::set<std::int64_t>{0, 1, 2});
    nn::GenerateOptions bad;
    Generator gen(0);
    for (double p : {0.0, -0.1, 1.5, double(NAN)}) {
        bad.top_p = p;
        CHECK_THROWS_WITH(nn::choose_token(logits, bad, gen), Catch::Contains("top_p must be in (0, 1]"));
    }
}
