// hb_shim.cc - the one C++ file: hb.h's C API implemented over google-benchmark 1.7 to 1.9.
//
// An hb_state * is a benchmark::State *, an hb_bench * a benchmark::internal::Benchmark *; the
// casts are the whole shim. hb_main wraps the default display reporter to count the runs that
// failed (hb_state_fail) apart from the ones refused on purpose (hb_state_skip), so that the
// process exit status says whether every timed strategy was verified. --hb_allocator re-executes
// the runner under another malloc (hb_alloc.h); every row whose timed loop ran gets the kernel's
// counts of that loop (hb_counters.h: page faults, peak memory, memory system calls).

#include "hb.h"
#include "hb_alloc.h"
#include "hb_build_info.h"
#include "hb_calibrate.h"
#include "hb_counters.h"
#include "hb_manifest.h"
#include "hb_size.h"
#ifdef HB_TEST_HOOKS
#include "hb_testhook.h" // TEST-ONLY: HB_INJECT=slowdown:<fraction>
#endif

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <regex.h>
#include <sstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

// Instruction counts for the CI gate (scripts/compare.py): under callgrind, each benchmark's timed
// loop is measured alone. The loop's first iteration starts instrumentation and zeroes the
// counters; its end dumps them, labelled "hb:<family>|<args>|<iterations>", and stops
// instrumentation, so setup, input generation and verification run uninstrumented (fast) and are
// not counted. Run `valgrind --tool=callgrind --instr-atstart=no hotbench ...`. Outside valgrind
// the requests are a few no-op instructions per iteration; without valgrind's header, none.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HB_CALLGRIND 1
#endif
#endif

namespace {

const char kSkipPrefix[] = "skipped: ";

// Whether google-benchmark's reporter saw a run end in SkipWithError, and its message: the
// fields are Run::skipped and Run::skip_message from google-benchmark 1.8 on, Run::error_occurred
// and Run::error_message before (CMakeLists.txt's feature test sets HB_BENCHMARK_RUN_SKIPPED).
// Every hotbench skip and failure goes through SkipWithError, which each version reports as an
// error, so both spellings mean the same runs.
bool run_errored(const benchmark::BenchmarkReporter::Run &r)
{
#if HB_BENCHMARK_RUN_SKIPPED
    return r.skipped != benchmark::internal::NotSkipped;
#else
    return r.error_occurred;
#endif
}

const std::string &run_message(const benchmark::BenchmarkReporter::Run &r)
{
#if HB_BENCHMARK_RUN_SKIPPED
    return r.skip_message;
#else
    return r.error_message;
#endif
}
const char kManifestKey[] = "hb_manifest: "; // the console header's line of the manifest

benchmark::State &S(hb_state *st)
{
    return *reinterpret_cast<benchmark::State *>(st);
}

const benchmark::State &S(const hb_state *st)
{
    return *reinterpret_cast<const benchmark::State *>(st);
}

benchmark::internal::Benchmark *B(hb_bench *b)
{
    return reinterpret_cast<benchmark::internal::Benchmark *>(b);
}

__attribute__((format(printf, 1, 0))) std::string vformat(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return std::string(fmt);
    std::string s(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(&s[0], s.size(), fmt, ap);
    s.resize(static_cast<size_t>(n));
    return s;
}

// The figures of each refusal (hb_state_skip_with), keyed by the run's name as the reporter sees
// it (<family>/<args>), one entry per skip in the order the skips happened: a benchmark skips once
// per repetition, and the reporter takes the k-th entry for the k-th skipped row of that name.
// google-benchmark 1.7.1 drops the counters of a run that called SkipWithError, so the reporter
// puts the figures back as counters (inject_skip_figures).
std::map<std::string, std::vector<hb_skip>> &skip_records()
{
    static std::map<std::string, std::vector<hb_skip>> m;
    return m;
}

// The argument names of each family (hb_bench_arg_names), to name a run as google-benchmark does.
std::map<std::string, std::vector<std::string>> &family_arg_names()
{
    static std::map<std::string, std::vector<std::string>> m;
    return m;
}

// The Big-O each family asked for (hb_bench_complexity), by family name. google-benchmark 1.7.1
// crashes when every run of a family with a complexity fails (it takes the first of its
// successful runs), and hotbench fails runs on purpose, so the shim fits complexity itself, in
// the reporter, the way google-benchmark does: least squares of t = c * g(N) for each candidate
// g, keeping the one with the smallest RMS; reported as the usual _BigO and _RMS rows.
std::map<std::string, benchmark::BigO> &wanted_complexity()
{
    static std::map<std::string, benchmark::BigO> m;
    return m;
}

std::map<benchmark::internal::Benchmark *, std::string> &family_names()
{
    static std::map<benchmark::internal::Benchmark *, std::string> m;
    return m;
}

double big_o_g(benchmark::BigO o, double n)
{
    switch (o) {
    case benchmark::oN:
        return n;
    case benchmark::oNSquared:
        return n * n;
    case benchmark::oNCubed:
        return n * n * n;
    case benchmark::oLogN:
        return std::log2(n);
    case benchmark::oNLogN:
        return n * std::log2(n);
    default:
        return 1.0;
    }
}

struct Fit {
    benchmark::BigO o;
    double coef; // seconds per g(N)
    double rms;  // relative: RMS of the residuals / mean time
};

Fit fit_big_o(benchmark::BigO want, const std::vector<double> &n, const std::vector<double> &t)
{
    static const benchmark::BigO all[] = {benchmark::o1,     benchmark::oLogN,
                                          benchmark::oN,     benchmark::oNLogN,
                                          benchmark::oNSquared, benchmark::oNCubed};
    Fit best = {benchmark::oNone, 0, INFINITY};
    double mean = 0;
    for (double x : t)
        mean += x / static_cast<double>(t.size());
    for (benchmark::BigO o : all) {
        if (want != benchmark::oAuto && o != want)
            continue;
        double gg = 0, gt = 0;
        for (size_t i = 0; i < n.size(); i++) {
            double g = big_o_g(o, n[i]);
            gg += g * g;
            gt += g * t[i];
        }
        double c = gg > 0 ? gt / gg : 0, ss = 0;
        for (size_t i = 0; i < n.size(); i++) {
            double r = t[i] - c * big_o_g(o, n[i]);
            ss += r * r;
        }
        double rms = mean > 0 ? std::sqrt(ss / static_cast<double>(n.size())) / mean : 0;
        if (rms < best.rms)
            best = {o, c, rms};
    }
    return best;
}

// Forwards to an inner reporter (the default console reporter, or the --benchmark_out file
// reporter), adds the _BigO and _RMS rows at the end of each family that asked for them, and
// counts the runs that failed (hb_state_fail) apart from those refused on purpose (hb_state_skip).
class Reporter : public benchmark::BenchmarkReporter
{
  public:
    explicit Reporter(benchmark::BenchmarkReporter *inner) : inner_(inner)
    {
    }
    bool ReportContext(const Context &context) override
    {
        // google-benchmark points this reporter's streams at the output file: pass them on. The
        // console's header (written to the error stream) would show the manifest, a line of
        // kilobytes: it is left out there; JSON output keeps it in its context.
        inner_->SetOutputStream(&GetOutputStream());
        std::ostringstream header;
        inner_->SetErrorStream(&header);
        bool ok = inner_->ReportContext(context);
        inner_->SetErrorStream(&GetErrorStream());
        std::istringstream lines(header.str());
        for (std::string line; std::getline(lines, line);)
            if (line.compare(0, sizeof kManifestKey - 1, kManifestKey) != 0)
                GetErrorStream() << line << '\n';
        return ok;
    }
    void ReportRuns(const std::vector<Run> &given) override
    {
        std::vector<Run> runs(given);
        for (Run &r : runs) {
            // a family's minimum time (hb_bench_min_time) is not part of a benchmark's name
            r.run_name.min_time.clear();
            if (r.run_name.function_name != family_) {
                FlushComplexity();
                family_ = r.run_name.function_name;
            }
            if (run_errored(r)) {
                const std::string &msg = run_message(r);
                if (msg.compare(0, sizeof kSkipPrefix - 1, kSkipPrefix) == 0) {
                    skipped_++;
                    InjectSkipFigures(&r);
                } else
                    failed_.push_back(r.benchmark_name() + ": " + msg);
            } else if (r.run_type == Run::RT_Iteration && r.iterations > 0) {
                family_runs_.push_back(r);
            }
        }
        inner_->ReportRuns(runs);
        NoteProgress(runs);
    }
    // Appends one JSON line per finished benchmark to f (the --hb_progress file, the caller's;
    // NULL: none): {"row": "<run name>", "seconds": S}, S the monotonic seconds since t0. A
    // benchmark counts once, when the first of its runs (its repetitions or their aggregates) is
    // reported, i.e. when all its repetitions are done; flushed at once, so that a reader sees
    // the pace of a run while it goes (scripts/bench.py).
    void SetProgress(std::FILE *f, double t0)
    {
        progress_ = f;
        progress_t0_ = t0;
    }
    void Finalize() override
    {
        FlushComplexity();
        inner_->Finalize();
    }
    const std::vector<std::string> &failed() const
    {
        return failed_;
    }
    size_t skipped() const
    {
        return skipped_;
    }

  private:
    void NoteProgress(const std::vector<Run> &runs)
    {
        if (!progress_ || runs.empty())
            return;
        std::string name = runs.front().run_name.str();
        if (name == progress_last_)
            return; // the aggregates after the repetitions of the same benchmark
        progress_last_ = name;
        std::string quoted;
        for (char c : name) {
            if (c == '"' || c == '\\')
                quoted += '\\';
            quoted += c;
        }
        std::fprintf(progress_, "{\"row\": \"%s\", \"seconds\": %.3f}\n", quoted.c_str(),
                     hb_now_s() - progress_t0_);
        std::fflush(progress_);
    }

    // Adds the figures hb_state_skip_with recorded for this skipped row as counters (the JSON
    // prints a skipped row's counters; the console shows the message only).
    void InjectSkipFigures(Run *r)
    {
        std::string key = r->run_name.function_name;
        if (!r->run_name.args.empty())
            key += "/" + r->run_name.args;
        auto rec = skip_records().find(key);
        size_t k = consumed_[key]++;
        if (rec == skip_records().end() || k >= rec->second.size())
            return;
        const hb_skip &f = rec->second[k];
        const std::pair<const char *, double> fields[] = {
            {"hb_predicted_s", f.predicted_s},
            {"hb_budget_s", f.budget_s},
            {"hb_peak_bytes", f.peak_bytes},
            {"hb_memory_limit_bytes", f.memory_limit_bytes},
        };
        for (const auto &fv : fields)
            if (fv.second != 0)
                r->counters[fv.first] = benchmark::Counter(fv.second);
        for (const hb_skip_figure &e : f.extra) {
            if (!e.name)
                break;
            r->counters[e.name] = benchmark::Counter(e.value);
        }
    }

    void FlushComplexity()
    {
        std::vector<Run> runs;
        runs.swap(family_runs_);
        auto want = wanted_complexity().find(family_);
        if (want == wanted_complexity().end() || want->second == benchmark::oNone ||
            runs.size() < 2)
            return;
        std::vector<double> n, real, cpu;
        for (const Run &r : runs) {
            n.push_back(static_cast<double>(r.complexity_n));
            real.push_back(r.real_accumulated_time / static_cast<double>(r.iterations));
            cpu.push_back(r.cpu_accumulated_time / static_cast<double>(r.iterations));
        }
        Fit fr = fit_big_o(want->second, n, real);
        Fit fc = fit_big_o(fr.o, n, cpu);
        Run big_o = runs.front();
        big_o.run_name.args.clear();
        big_o.run_name.repetitions.clear();
        big_o.run_type = Run::RT_Aggregate;
        big_o.per_family_instance_index = 0;
        big_o.repetition_index = Run::no_repetition_index;
        big_o.iterations = 0;
        big_o.counters.clear();
        big_o.complexity = fr.o;
        big_o.complexity_n = 0;
        big_o.memory_result = nullptr;
        Run rms = big_o;
        big_o.aggregate_name = "BigO";
        big_o.aggregate_unit = benchmark::kTime;
        big_o.real_accumulated_time = fr.coef;
        big_o.cpu_accumulated_time = fc.coef;
        big_o.report_big_o = true;
        rms.aggregate_name = "RMS";
        rms.aggregate_unit = benchmark::kPercentage;
        // reporters multiply times by the unit's multiplier; a relative RMS must not be scaled
        double mult = benchmark::GetTimeUnitMultiplier(rms.time_unit);
        rms.real_accumulated_time = fr.rms / mult;
        rms.cpu_accumulated_time = fc.rms / mult;
        rms.report_rms = true;
        inner_->ReportRuns({big_o, rms});
    }

    benchmark::BenchmarkReporter *inner_;
    std::string family_;
    std::vector<Run> family_runs_;
    std::vector<std::string> failed_;
    size_t skipped_ = 0;
    std::map<std::string, size_t> consumed_; // skip records used, per run name
    std::FILE *progress_ = nullptr;          // --hb_progress (not owned), or NULL
    double progress_t0_ = 0;
    std::string progress_last_;
};

// The family of the benchmark running now, for the callgrind dump labels (see HB_CALLGRIND).
const std::string *&callgrind_family()
{
    static const std::string *family = nullptr;
    return family;
}

// The kernel's side of the running benchmark's timed loop (hb_counters.h): minor faults, peak
// resident memory, memory system calls. One per process, disabled until hb_main opens it on the
// thread that runs the benchmarks (google-benchmark 1.7.1 runs a one-thread benchmark there).
hb_counters &counters()
{
    static hb_counters c = [] {
        hb_counters z = {};
        for (int &fd : z.fds)
            fd = -1;
        return z;
    }();
    return c;
}

// Puts the counters of the benchmark call that just returned into its row, per iteration, when
// its timed loop ran and it neither failed nor skipped (docs/manifest.md, "Fields of a run's
// rows"). google-benchmark keeps the last call's State for the row: the sizing calls' counters
// go with their own States.
void add_row_counters(benchmark::State &st)
{
    hb_counters &c = counters();
    if (!c.live)
        return;
    hb_counters_end(&c); // a loop left early (a failure inside it) stops counting here
    if (!c.ended || st.error_occurred() || st.iterations() <= 0)
        return;
    double iters = static_cast<double>(st.iterations());
    double faults = static_cast<double>(c.minor_faults) / iters;
    st.counters["minor_faults"] = benchmark::Counter(faults);
    auto bytes = st.counters.find("bytes_per_second"); // total bytes until the run finishes
    if (bytes != st.counters.end() && bytes->second.value > 0)
        st.counters["minor_faults_per_mb"] =
            benchmark::Counter(faults / (bytes->second.value / iters / 1e6));
    if (c.peak_rss_bytes) {
        st.counters["peak_rss_bytes"] = benchmark::Counter(static_cast<double>(c.peak_rss_bytes));
        uint64_t growth = c.peak_rss_bytes > c.rss_at_start ? c.peak_rss_bytes - c.rss_at_start : 0;
        st.counters["peak_rss_growth_bytes"] = benchmark::Counter(static_cast<double>(growth));
    }
    if (!c.syscalls_ok)
        return;
    for (int i = 0; i < HB_COUNTERS_SYSCALLS; i++)
        st.counters[std::string(hb_counters_syscall_name(i)) + "_calls"] =
            benchmark::Counter(static_cast<double>(c.syscalls[i]) / iters);
}

// The number of arguments of each family (State has no count of its own in 1.7.1).
std::map<std::string, size_t> &family_nargs()
{
    static std::map<std::string, size_t> m;
    return m;
}

// Matches --name=value; returns the value or nullptr.
const char *flag_value(const char *arg, const char *name)
{
    size_t n = std::strlen(name);
    if (std::strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    return nullptr;
}

// The sane maxima of the numeric flags: beyond them a value is a typo, not a wish.
const double kMaxBudgetS = 1e6;            // --hb_budget: ~11.6 days
const uint64_t kMaxMemory = UINT64_C(1) << 50; // --hb_max_memory: 1 PiB (1125899906842624 bytes)

// Parses the seconds of --hb_budget: a finite decimal in (0, kMaxBudgetS]. Returns 0 or 2 after
// the message (inf, nan, overflow and underflow included).
int parse_budget(const char *v, double *out)
{
    char *end = nullptr;
    errno = 0;
    double d = std::strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !std::isfinite(d) || !(d > 0) || d > kMaxBudgetS) {
        std::fprintf(stderr, "hotbench: --hb_budget wants seconds, more than 0 and at most %g, "
                             "not '%s'\n",
                     kMaxBudgetS, v);
        return 2;
    }
    *out = d;
    return 0;
}

// Parses a byte count of flag (hb_size_parse: 4096, 64K, 1.7G) in [lo, hi]. Returns 0 or 2 after
// a message naming the flag, the value and the allowed range.
int parse_bytes(const char *flag, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    const char *why = nullptr;
    if (hb_size_parse_range(v, lo, hi, out, &why) == 0)
        return 0;
    std::fprintf(stderr,
                 "hotbench: %s wants bytes from %llu to %llu (K, M, G: 10^3, 10^6, 10^9), "
                 "not '%s': %s\n",
                 flag, static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi),
                 v, why);
    return 2;
}

// What parse_flags found besides the options.
struct Flags {
    bool help = false;
    bool calibrate = false;
    bool manifest = false;
    bool list_only = false; // --benchmark_list_tests: nothing will run
    const char *allocator = "glibc"; // --hb_allocator (hb_alloc.h)
    const char *progress = nullptr;  // --hb_progress: the file of finished benchmarks
};

// Parses one --hb_* flag a into *opt and *f. Returns 0, 1 when a is not an --hb_* flag, or 2
// after a usage message.
int parse_hb_flag(const char *a, hb_options *opt, Flags *f)
{
    const char *v;
    uint64_t n;
    if ((v = flag_value(a, "--hb_budget")))
        return parse_budget(v, &opt->budget_s);
    if ((v = flag_value(a, "--hb_profile"))) {
        static const char *const names[HB_PROFILES] = {"full", "quick", "smoke"};
        int id = 0;
        while (id < HB_PROFILES && std::strcmp(v, names[id]) != 0)
            id++;
        if (id == HB_PROFILES) {
            std::fprintf(stderr, "hotbench: --hb_profile is full, quick or smoke, not '%s'\n", v);
            return 2;
        }
        opt->profile = names[id];
        opt->profile_id = static_cast<enum hb_profile>(id);
    } else if ((v = flag_value(a, "--hb_data"))) {
        opt->data_dir = v;
    } else if ((v = flag_value(a, "--hb_read"))) {
        if (parse_bytes("--hb_read", v, 1, UINT64_C(1) << 24, &n))
            return 2;
        opt->read_size = static_cast<uint32_t>(n);
    } else if ((v = flag_value(a, "--hb_max_memory"))) {
        if (parse_bytes("--hb_max_memory", v, 1, kMaxMemory, &n))
            return 2;
        opt->max_memory = static_cast<double>(n);
    } else if ((v = flag_value(a, "--hb_repetitions"))) {
        char *end = nullptr;
        errno = 0;
        long r = std::strtol(v, &end, 10);
        if (end == v || *end || errno || r < 1 || r > 1000) {
            std::fprintf(stderr, "hotbench: --hb_repetitions wants 1 to 1000, not '%s'\n", v);
            return 2;
        }
        opt->repetitions = static_cast<int>(r);
    } else if ((v = flag_value(a, "--hb_allocator"))) {
        if (!hb_alloc_known(v)) {
            std::fprintf(stderr, "hotbench: --hb_allocator is one of %s, not '%s'\n",
                         HB_ALLOC_NAMES, v);
            return 2;
        }
        f->allocator = v;
    } else if ((v = flag_value(a, "--hb_progress"))) {
        if (!*v) {
            std::fprintf(stderr, "hotbench: --hb_progress wants a file name\n");
            return 2;
        }
        f->progress = v;
    } else if (!std::strcmp(a, "--hb_manifest")) {
        f->manifest = true;
    } else if (!std::strcmp(a, "--hb_calibrate")) {
        f->calibrate = true;
    } else if (std::strncmp(a, "--hb_", 5) == 0) {
        std::fprintf(stderr, "hotbench: unknown option '%s' (see --help)\n", a);
        return 2;
    } else {
        return 1;
    }
    return 0;
}

// Whether google-benchmark 1.7.1 reads the value v of a bool flag (or of its BENCHMARK_*
// environment variable) as true (IsTruthyFlagValue): one character other than 0, f, F, n, N
// that is a letter or a digit; else anything but "", false, no and off in any case.
bool bm_truthy(const char *v)
{
    if (v[0] && !v[1])
        return std::isalnum(static_cast<unsigned char>(v[0])) && !std::strchr("0fFnN", v[0]);
    if (!v[0])
        return true;
    std::string low(v);
    for (char &ch : low)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return low != "false" && low != "no" && low != "off";
}

// Takes the --hb_* flags out of argv into *opt and *f; the rest goes to *rest for
// google-benchmark. Returns 0 or 2 (a usage error, already reported).
int parse_flags(int argc, char **argv, hb_options *opt, Flags *f, std::vector<char *> *rest)
{
    const char *env = std::getenv("BENCHMARK_LIST_TESTS"); // google-benchmark's default
    f->list_only = env && bm_truthy(env);
    rest->push_back(argv[0]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = parse_hb_flag(a, opt, f);
        if (rc == 2)
            return 2;
        if (rc == 0)
            continue;
        if (!std::strcmp(a, "--help") || !std::strcmp(a, "-h"))
            f->help = true;
        const char *v = flag_value(a, "--benchmark_list_tests");
        if (!std::strcmp(a, "--benchmark_list_tests"))
            f->list_only = true;
        else if (v) // the last one wins, as in google-benchmark
            f->list_only = bm_truthy(v);
        rest->push_back(argv[i]);
    }
    return 0;
}

// Runs the calibration and prints its JSON line on stdout. Returns the exit status: 0, or 1 when
// memory is short.
int calibrate()
{
    hb_calibration c;
    char line[256];
    int rc = hb_calibrate(&c);
    if (rc == HB_OK)
        rc = hb_calibration_json(&c, line, sizeof line) < 0 ? HB_EINVAL : HB_OK;
    if (rc != HB_OK) {
        std::fprintf(stderr, "hotbench: --hb_calibrate: %s\n", hb_err_str(rc));
        return 1;
    }
    std::fputs(line, stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
}

// The run's filter state for hb_filter_selects, set by hb_main after benchmark::Initialize.
struct Selection {
    bool list_only = false;
    std::string filter;
    bool min_time_given = false; // --benchmark_min_time on the command line: hb_bench_min_time
                                 // leaves it in force
};
Selection &selection()
{
    static Selection s;
    return s;
}

// The running benchmark's name as the reporter sees it: <family>/<arg>:<value>/... (the names of
// hb_bench_arg_names; a value alone where a family has none).
std::string running_name(const hb_state *st)
{
    const std::string &family = *callgrind_family();
    std::string name = family;
    const std::vector<std::string> &names = family_arg_names()[family];
    size_t n = family_nargs()[family];
    for (size_t i = 0; i < n; i++) {
        name += "/";
        if (i < names.size() && !names[i].empty())
            name += names[i] + ":";
        name += std::to_string(S(st).range(i));
    }
    return name;
}

// The refusal of the benchmark call under way (hb_state_refusal): reset before each call.
struct Refusal {
    const hb_state *st = nullptr; // the state that refused; nullptr: none in this call
    hb_skip why = {};
    std::string msg; // without kSkipPrefix
};
Refusal &this_call_refusal()
{
    static Refusal r;
    return r;
}

// Records one skip of the running benchmark (its figures, or none) for the reporter and for
// hb_state_refusal.
void record_skip(const hb_state *st, const hb_skip *why, const std::string &msg)
{
    hb_skip none = {};
    skip_records()[running_name(st)].push_back(why ? *why : none);
    Refusal &r = this_call_refusal();
    r.st = st;
    r.why = why ? *why : none;
    r.msg = msg.substr(sizeof kSkipPrefix - 1);
}

#ifdef HB_TEST_HOOKS
// TEST-ONLY (hb_testhook.h, HB_INJECT=slowdown:<fraction>): the slowdown of the run under way on
// this thread (one call of the benchmark function). The final KeepRunning call, while the timer
// still runs, pays the run's whole debt: fraction x the timed work's CPU time, as calibrated rounds
// of a loop (CPU work, whatever the scheduler does). The compare judges CPU time. The timed work
// is measured with the monotonic clock (28 ns through the vDSO) at the loop's start, at each
// pause and resume and at the payment, and priced at the thread's share of the CPU over the whole
// run (CPU seconds over monotonic seconds, at most 1): an estimate of its CPU time, exact where
// the timed and the paused spans had the same share (the suite's pauses free memory, CPU work).
// The thread's CPU clock is a system call here (1.6 us on the project's VM, and its kernel entry
// slows the work after it), so it is read before the timer starts and around the payment only
// (two reads in the last KeepRunning, timed): reading it at every pause and resume made 5%
// injected measure +15% to +47%. Until e7a7881 the debt was paid at checkpoints doubling up to
// 4 ms, two reads each; idle, 12 shuffled rounds at the gate's settings, the two measured +4.7%
// (checkpoints) and +5.1% (one payment) over 36 rows, within the rows' noise. Priced by the
// monotonic clock alone, a preemption inside timed work counted as work: beside two busy
// processes, 5% injected measured +7.9%.
struct Slowdown {
    double fraction = 0;   // the injected fraction; 0: this run is not slowed
    bool started = false;  // the timed loop is under way (the first KeepRunning returned true)
    bool paused = false;   // between hb_state_pause_timing and hb_state_resume_timing
    double since = 0;      // monotonic seconds at the loop's start or the last resume
    double timed = 0;      // timed work (monotonic s) done before the last pause
    double start_mono = 0; // monotonic seconds just before the timer started
    double start_cpu = 0;  // the thread's CPU seconds then
    double worked = 0;     // timed work (CPU s, estimated) paid for (hb_injected_paid)
    double burned = 0;     // CPU seconds the payment took
};
thread_local Slowdown t_slowdown;

// The monotonic clock, in seconds.
double mono_s()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The CPU time of the calling thread, in seconds.
double thread_cpu_s()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Burns CPU: n rounds of a xorshift loop the compiler cannot remove, no clock read.
void slowdown_burn(uint64_t n)
{
    uint64_t x = 88172645463325252u;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        benchmark::DoNotOptimize(x);
    }
}

// CPU seconds per round of slowdown_burn, measured once (the least of 5 timings of 2^18 rounds:
// a preemption only ever adds time).
double burn_round_s()
{
    static double per_round = 0;
    if (per_round == 0) {
        const uint64_t n = uint64_t{1} << 18;
        double best = 1e9;
        for (int k = 0; k < 5; k++) {
            double t0 = thread_cpu_s();
            slowdown_burn(n);
            best = std::min(best, thread_cpu_s() - t0);
        }
        per_round = std::max(best, 1e-9) / static_cast<double>(n);
    }
    return per_round;
}

// Pays d's whole debt, once, at the end of the timed loop: burns d.fraction x the CPU time of the
// timed work, as calibrated rounds. That CPU time is the work's monotonic seconds x the thread's
// share of the CPU since the timer started (at most 1). The burn is not work. Never inlined: a
// profile names the injected work by this function (explain's tables, tests/test_bisect.sh).
__attribute__((noinline)) void slowdown_settle(Slowdown &d)
{
    double now = mono_s();
    double cpu = thread_cpu_s();
    double wall = now - d.start_mono;
    double share = wall > 0 ? std::min(1.0, (cpu - d.start_cpu) / wall) : 1.0;
    double work = (d.timed + (now - d.since)) * share;
    slowdown_burn(static_cast<uint64_t>(d.fraction * work / burn_round_s()));
    d.worked = work;
    d.burned = thread_cpu_s() - cpu;
    d.fraction = 0; // paid
}
#endif
} // namespace

extern "C" {

void hb_print_help(void *f)
{
    std::fprintf(static_cast<FILE *>(f),
                 "hotbench options (before or among google-benchmark's --benchmark_* flags):\n"
                 "  --hb_profile=full|quick|smoke  sizes to run: full (default, up to the 1.7 GB\n"
                 "                                 payloads), quick (CI: small and medium sizes),\n"
                 "                                 smoke (tiny inputs: verify every strategy once)\n"
                 "  --hb_budget=SECONDS            skip a size of a quadratic strategy whose\n"
                 "                                 predicted time exceeds this (default 10, at\n"
                 "                                 most 1e6); linear strategies and baselines run\n"
                 "                                 every size, the 32-bit cliff has its own\n"
                 "                                 allowance; skips are reported, not failures\n"
                 "  --hb_data=DIR                  cache of generated inputs (default $HB_DATA_DIR\n"
                 "                                 or ./data)\n"
                 "  --hb_read=BYTES                bytes per read for the reading cases, 1 to\n"
                 "                                 16777216 (default 4096)\n"
                 "  --hb_max_memory=BYTES          refuse (skip) a size whose peak memory exceeds\n"
                 "                                 this (K/M/G decimal, up to 1 PiB; default 90%%\n"
                 "                                 of MemAvailable when it runs)\n"
                 "  --hb_repetitions=N             repetitions of each benchmark, 1 to 1000\n"
                 "                                 (default: 3 for full and quick, 1 for smoke)\n"
                 "  --hb_allocator=NAME            the malloc the run measures: glibc (default),\n"
                 "                                 jemalloc, mimalloc or tcmalloc (Debian's\n"
                 "                                 shared library). hotbench re-executes itself\n"
                 "                                 with it in LD_PRELOAD: one binary serves every\n"
                 "                                 allocator, no rebuild, but the preload is\n"
                 "                                 process-wide (google-benchmark, expat, zlib\n"
                 "                                 use it too, as in an application linking it).\n"
                 "                                 Recorded in the JSON context (hb_allocator*)\n"
                 "  --hb_calibrate                 measure this machine (< 4 s: first touch of\n"
                 "                                 256 MiB, warm copy of 64 MiB, a CPU loop,\n"
                 "                                 medians of 3),\n"
                 "                                 print one JSON object and exit; runs nothing:\n"
                 "                                 {\"schema\": \"hotbench-calibration/1\",\n"
                 "                                  \"first_touch_gbps\": F, \"warm_copy_gbps\": F,\n"
                 "                                  \"cpu_mops\": F, \"seconds\": F}\n"
                 "                                 (cpu_mops: millions of steps per second of a\n"
                 "                                 short CPU-bound loop, hb_calibrate.h)\n"
                 "  --hb_progress=FILE             append one JSON line to FILE per benchmark\n"
                 "                                 done, {\"row\": NAME, \"seconds\": S since the\n"
                 "                                 start}, flushed at once (scripts/bench.py\n"
                 "                                 reads the run's pace from it)\n"
                 "  --hb_manifest                  print the cases' descriptions as one JSON\n"
                 "                                 object (schema hotbench-manifest/1,\n"
                 "                                 docs/manifest.md) and exit; runs nothing.\n"
                 "                                 Every run's JSON context carries the same\n"
                 "                                 under \"hb_manifest\"\n");
}

namespace {

// --hb_manifest: the manifest on stdout. 0, or 1 when stdout failed.
int print_manifest(const hb_case *cases, size_t ncases)
{
    if (hb_manifest_write(stdout, cases, ncases) != 0 || std::fputc('\n', stdout) == EOF ||
        std::fflush(stdout) != 0) {
        std::fprintf(stderr, "hotbench: --hb_manifest: cannot write: %s\n", std::strerror(errno));
        return 1;
    }
    return 0;
}

// Calls every case's register_fn, then checks that each registered family is described by its
// case (hb_case.h): a family the manifest does not list would be run but never reported or
// gated. Records the manifest in the run's context. 0, or 1 after a message.
int register_cases(const hb_options &opt, const hb_case *cases, size_t ncases)
{
    for (size_t i = 0; i < ncases; i++) {
        int rc = cases[i].register_fn(&opt);
        if (rc != HB_OK) {
            std::fprintf(stderr, "hotbench: case %s could not register: %s\n", cases[i].name,
                         hb_err_str(rc));
            return 1;
        }
    }
    char why[256];
    if (!hb_manifest_unique(cases, ncases, why, sizeof why)) {
        std::fprintf(stderr, "hotbench: %s\n", why);
        return 1;
    }
    for (const auto &kv : family_names()) {
        if (!hb_manifest_describes(cases, ncases, kv.second.c_str(), why, sizeof why)) {
            std::fprintf(stderr, "hotbench: %s: %s\n", kv.second.c_str(), why);
            return 1;
        }
    }
    char *json = hb_manifest_json(cases, ncases);
    if (!json) {
        std::fprintf(stderr, "hotbench: out of memory for the manifest\n");
        return 1;
    }
    hb_add_context("hb_manifest", json);
    std::free(json);
    return 0;
}

// Opens the timed loops' counters on this thread (the one that runs the benchmarks) and records
// in the context whether the system calls are counted: "tracepoints" or "unavailable: <why>".
// Under valgrind nothing is counted (valgrind's memory is not the program's; callgrind's counts
// must not include the counters' system calls).
void open_counters()
{
    hb_counters &c = counters();
#ifdef HB_CALLGRIND
    if (RUNNING_ON_VALGRIND)
        hb_counters_disable(&c, "under valgrind");
    else
#endif
        hb_counters_open(&c);
    hb_add_context("hb_syscall_counts", c.syscalls_why);
}

// The run's context keys of its build, options and allocator (measurement rule 6).
void record_context(const hb_options &opt, const hb_alloc_info &alloc)
{
    // the build's strings come from their own object file (hb_build_info.h says why)
    const hb_build_info *build = hb_build_info_get();
    const char *rev = std::getenv("HB_GIT_REV");
    hb_add_context("hb_git_revision", rev && *rev ? rev : build->git_revision);
    hb_add_context("hb_compiler", build->compiler);
    hb_add_context("hb_build_flags", build->build_flags);
    hb_add_context("hb_build_type", build->build_type);
    hb_add_context("hb_benchmark_version", build->benchmark_version);
    hb_add_context("hb_profile", opt.profile);
    char budget[32];
    std::snprintf(budget, sizeof budget, "%g", opt.budget_s);
    hb_add_context("hb_budget_s", budget);
    hb_add_context("hb_read_size", std::to_string(opt.read_size).c_str());
    hb_add_context("hb_repetitions", std::to_string(opt.repetitions).c_str());
    hb_add_context("hb_allocator", alloc.name);
    hb_add_context("hb_allocator_version", alloc.version);
    hb_add_context("hb_allocator_library", alloc.library);
}

// google-benchmark 1.8 reads --benchmark_min_time as "<float>s" or "<integer>x" and logs a
// complaint at a bare number (still taken as seconds); 1.7 takes the bare number only. For 1.8
// and later, a bare number gets its "s" here, so that one command line serves every version.
// Both came in google-benchmark 1.8.0 (its release notes), so the feature test of Run::skipped
// (HB_BENCHMARK_RUN_SKIPPED) marks this one too. Returns a, or the rewritten argument (kept
// until the process exits).
static char *min_time_for_library(char *a)
{
#if HB_BENCHMARK_RUN_SKIPPED
    static std::deque<std::string> kept;
    const char *v = flag_value(a, "--benchmark_min_time");
    char *end = nullptr;
    if (v && *v) {
        std::strtod(v, &end);
        if (*end == '\0') {
            kept.push_back(std::string(a) + "s");
            return &kept.back()[0];
        }
    }
#endif
    return a;
}

// Where --benchmark_out sends the results, as given on the command line.
struct OutFile {
    const char *file = nullptr;  // --benchmark_out: none when null or empty
    const char *format = "json"; // --benchmark_out_format: json or console
};

// Reads google-benchmark's flags in rest that hotbench acts on too: --benchmark_repetitions (into
// opt->repetitions), --benchmark_min_time (noted in the selection; rewritten for the library,
// min_time_for_library), --benchmark_out and its format (into *out). Without
// --benchmark_repetitions, appends one with opt->repetitions, so that benchmark names stay
// <case>/<strategy>/<arg>:<value> without a "repeats:" part. The appended argument lives until
// the process exits.
void library_flags(std::vector<char *> *rest, hb_options *opt, OutFile *out)
{
    static std::string reps;
    bool reps_given = false;
    for (char *&a : *rest) {
        const char *v;
        if ((v = flag_value(a, "--benchmark_repetitions"))) {
            reps_given = true;
            opt->repetitions = std::atoi(v);
        }
        if (flag_value(a, "--benchmark_min_time")) {
            selection().min_time_given = true;
            a = min_time_for_library(a);
        }
        if ((v = flag_value(a, "--benchmark_out")))
            out->file = v;
        if ((v = flag_value(a, "--benchmark_out_format")))
            out->format = v;
    }
    if (!reps_given) {
        reps = "--benchmark_repetitions=" + std::to_string(opt->repetitions);
        rest->push_back(&reps[0]);
    }
}

// Parses the command line: the --hb_* flags into *opt and *flags (from the defaults), the
// allocator entered (hb_alloc_enter: the first time re-executes the process under it, not
// returning) into *alloc, --help's text printed, and the rest (kept in *rest, which must outlive
// the run) handed to benchmark::Initialize. Returns -1 to go on, or the exit status 2 after a
// usage message.
int parse_command_line(int argc, char **argv, hb_options *opt, Flags *flags, hb_alloc_info *alloc,
                       std::vector<char *> *rest, OutFile *out)
{
    opt->budget_s = 10.0;
    opt->profile = "full";
    opt->profile_id = HB_PROFILE_FULL;
    const char *env_data = std::getenv("HB_DATA_DIR");
    opt->data_dir = env_data && *env_data ? env_data : "data";
    opt->read_size = 4096;
    opt->repetitions = -1;
    // Take out our flags; leave the rest for google-benchmark.
    if (parse_flags(argc, argv, opt, flags, rest))
        return 2;
    bool help = flags->help;
    if (flags->calibrate && flags->manifest && !help) {
        std::fprintf(stderr, "hotbench: --hb_calibrate and --hb_manifest each print one JSON "
                             "object and exit: give one of them\n");
        return 2;
    }
    if (opt->repetitions < 0)
        opt->repetitions = opt->profile_id == HB_PROFILE_SMOKE ? 1 : 3;
    if (!help) {
        char msg[1024];
        if (hb_alloc_enter(flags->allocator, argv, alloc, msg, sizeof msg) != HB_OK) {
            std::fprintf(stderr, "%s\n", msg);
            return 2;
        }
    }
    if (help) {
        std::printf("usage: hotbench [--hb_* options] [--benchmark_* options]\n\n"
                    "Runs every case's strategies, each verified against its reference before\n"
                    "it is timed. Exit status: 0 all verified, 1 a strategy failed, 2 usage.\n\n");
        hb_print_help(stdout);
        std::printf("\ngoogle-benchmark's options follow.\n\n");
    }
    library_flags(rest, opt, out);
    int rargc = static_cast<int>(rest->size());
    rest->push_back(nullptr);
    benchmark::Initialize(&rargc, rest->data());
    if (benchmark::ReportUnrecognizedArguments(rargc, rest->data()))
        return 2;
    return -1;
}

// The reporter of --benchmark_out's file, wrapping *inner (set here): none without a file.
// Returns 0, or 2 after a message for a format other than json or console.
int open_file_reporter(const OutFile &out, std::unique_ptr<benchmark::BenchmarkReporter> *inner,
                       std::unique_ptr<Reporter> *file)
{
    if (!out.file || !*out.file)
        return 0;
    if (!std::strcmp(out.format, "json"))
        inner->reset(new benchmark::JSONReporter);
    else if (!std::strcmp(out.format, "console"))
        inner->reset(new benchmark::ConsoleReporter(benchmark::ConsoleReporter::OO_None));
    else {
        std::fprintf(stderr, "hotbench: --benchmark_out_format is json or console (csv is "
                             "deprecated in google-benchmark)\n");
        return 2;
    }
    file->reset(new Reporter(inner->get()));
    return 0;
}

// The exit status of a run of ran benchmarks, after the summary lines on stderr: 1 when one
// failed (each named), 2 when none matched the filter, else 0.
int run_outcome(const Reporter &reporter, size_t ran)
{
    if (reporter.skipped())
        std::fprintf(stderr, "hotbench: %zu benchmark(s) skipped on purpose (see 'skipped:')\n",
                     reporter.skipped());
    if (!reporter.failed().empty()) {
        std::fprintf(stderr, "hotbench: %zu benchmark(s) FAILED and were not timed:\n",
                     reporter.failed().size());
        for (const std::string &f : reporter.failed())
            std::fprintf(stderr, "  %s\n", f.c_str());
        return 1;
    }
    if (ran == 0) {
        std::fprintf(stderr, "hotbench: no benchmark matched --benchmark_filter "
                             "(--benchmark_list_tests=true lists the names)\n");
        return 2;
    }
    return 0;
}

// Records the context, registers the cases and runs the benchmarks google-benchmark selected,
// with the console reporter, the --hb_progress file and --benchmark_out's file. Returns the exit
// status: 0; 1 a case did not register or a benchmark failed; 2 an unwritable --hb_progress, a
// bad --benchmark_out_format or no benchmark matched.
int run_benchmarks(const hb_options &opt, const hb_alloc_info &alloc, const Flags &flags,
                   const OutFile &out, const hb_case *cases, size_t ncases)
{
    selection().list_only = flags.list_only;
    selection().filter = benchmark::GetBenchmarkFilter();
    record_context(opt, alloc);
    open_counters();
    if (register_cases(opt, cases, ncases) != 0)
        return 1;

    Reporter display(benchmark::CreateDefaultDisplayReporter());
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> progress(nullptr, std::fclose);
    if (flags.progress && !flags.list_only) {
        progress.reset(std::fopen(flags.progress, "w"));
        if (!progress) {
            std::fprintf(stderr, "hotbench: --hb_progress: cannot write %s: %s\n", flags.progress,
                         std::strerror(errno));
            return 2;
        }
        display.SetProgress(progress.get(), hb_now_s());
    }
    std::unique_ptr<benchmark::BenchmarkReporter> file_inner;
    std::unique_ptr<Reporter> file;
    if (open_file_reporter(out, &file_inner, &file) != 0)
        return 2;
    size_t ran = benchmark::RunSpecifiedBenchmarks(&display, file.get());
    benchmark::Shutdown();
    return run_outcome(display, ran);
}

} // namespace

int hb_main(int argc, char **argv, const hb_case *cases, size_t ncases)
{
    static hb_options opt;
    static hb_alloc_info alloc;
    Flags flags;
    std::vector<char *> rest; // google-benchmark's arguments: kept until the run ends
    OutFile out;
    int rc = parse_command_line(argc, argv, &opt, &flags, &alloc, &rest, &out);
    if (rc >= 0)
        return rc;
    // After google-benchmark's parse, so that an unknown argument is a usage error here too.
    if (flags.calibrate)
        return calibrate();
    if (flags.manifest)
        return print_manifest(cases, ncases);
    return run_benchmarks(opt, alloc, flags, out, cases, ncases);
}

double hb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int hb_filter_selects(const char *name)
{
    // As google-benchmark 1.7.1's FindBenchmarks: "" and "all" select all, a leading '-'
    // negates, the rest is an extended regular expression searched in the name.
    const Selection &sel = selection();
    if (sel.list_only)
        return 0;
    std::string f = sel.filter;
    bool negative = !f.empty() && f[0] == '-';
    if (negative)
        f.erase(0, 1);
    if (f.empty() || f == "all")
        return negative ? 0 : 1;
    // POSIX extended regular expressions (std::regex trips GCC 12's -Wmaybe-uninitialized
    // under the sanitizers)
    regex_t re;
    if (regcomp(&re, f.c_str(), REG_EXTENDED | REG_NOSUB) != 0)
        return 1; // google-benchmark reports the bad filter itself
    bool found = regexec(&re, name, 0, nullptr, 0) == 0;
    regfree(&re);
    return found != negative;
}

void hb_add_context(const char *key, const char *value)
{
    benchmark::AddCustomContext(key, value);
}

hb_bench *hb_register(const char *name, hb_bench_fn fn, void *arg)
{
#ifdef HB_TEST_HOOKS
    // TEST-ONLY: a bad HB_INJECT=slowdown or HB_INJECT_SELECT stops hotbench before any run.
    double fraction = 0;
    char msg[512];
    if (hb_test_slowdown(name, &fraction, msg, sizeof msg) != HB_OK) {
        std::fprintf(stderr, "hotbench: %s\n", msg);
        std::exit(2);
    }
    benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
        name, [fn, arg, fraction, family = std::string(name)](benchmark::State &st) {
            callgrind_family() = &family;
            t_slowdown = Slowdown();
            t_slowdown.fraction = fraction;
            hb_counters_begin(&counters());
            this_call_refusal() = Refusal();
            fn(reinterpret_cast<hb_state *>(&st), arg);
            add_row_counters(st);
            const Slowdown paid = t_slowdown;
            t_slowdown = Slowdown();
            if (fraction > 0 && !st.error_occurred()) {
                st.counters["hb_injected_fraction"] = benchmark::Counter(fraction);
                // what the payment took over the work it paid for (CPU time over the work's
                // estimated CPU time): a calibration gone wrong, or a debt never paid, shows
                // here, not as a missed detection
                if (paid.worked > 0)
                    st.counters["hb_injected_paid"] = benchmark::Counter(paid.burned /
                                                                         paid.worked);
            }
        });
#else
    benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
        name, [fn, arg, family = std::string(name)](benchmark::State &st) {
            callgrind_family() = &family;
            hb_counters_begin(&counters());
            this_call_refusal() = Refusal();
            fn(reinterpret_cast<hb_state *>(&st), arg);
            add_row_counters(st);
        });
#endif
    b->UseRealTime();
    family_names()[b] = name;
    return reinterpret_cast<hb_bench *>(b);
}

void hb_bench_args(hb_bench *b, const int64_t *args, size_t n)
{
    B(b)->Args(std::vector<int64_t>(args, args + n));
    family_nargs()[family_names()[B(b)]] = n;
}

void hb_bench_range(hb_bench *b, int64_t lo, int64_t hi, int mult)
{
    B(b)->RangeMultiplier(mult)->Range(lo, hi);
    family_nargs()[family_names()[B(b)]] = 1;
}

void hb_bench_arg_names(hb_bench *b, const char *const *names, size_t n)
{
    B(b)->ArgNames(std::vector<std::string>(names, names + n));
    family_arg_names()[family_names()[B(b)]] = std::vector<std::string>(names, names + n);
}

void hb_bench_complexity(hb_bench *b, enum hb_big_o o)
{
    static const benchmark::BigO map[] = {benchmark::oNone, benchmark::o1,     benchmark::oN,
                                          benchmark::oNSquared, benchmark::oNCubed,
                                          benchmark::oLogN, benchmark::oNLogN, benchmark::oAuto};
    // Fitted by the shim's reporter, not by google-benchmark (see wanted_complexity).
    wanted_complexity()[family_names()[B(b)]] = map[o];
}

void hb_bench_unit(hb_bench *b, enum hb_unit u)
{
    static const benchmark::TimeUnit map[] = {benchmark::kNanosecond, benchmark::kMicrosecond,
                                              benchmark::kMillisecond, benchmark::kSecond};
    B(b)->Unit(map[u]);
}

void hb_bench_repetitions(hb_bench *b, int n)
{
    B(b)->Repetitions(n);
}

void hb_bench_min_time(hb_bench *b, double seconds)
{
    // The user's --benchmark_min_time is for every benchmark; a listing runs nothing, and its
    // names stay without google-benchmark's "min_time:" part, as the reporter writes them.
    if (selection().min_time_given || selection().list_only)
        return;
    B(b)->MinTime(seconds);
}

void hb_bench_iterations(hb_bench *b, int64_t n)
{
    B(b)->Iterations(n);
}

int64_t hb_state_arg(const hb_state *st, size_t i)
{
    return S(st).range(i);
}

int hb_state_keep_running(hb_state *st)
{
    benchmark::State &s = S(st);
    hb_counters &c = counters();
    if (c.live && !c.started) // the first call: counting starts before the timer does
        hb_counters_resume(&c);
#ifdef HB_TEST_HOOKS
    // TEST-ONLY: HB_INJECT=slowdown pays the timed work's debt before the last KeepRunning call
    // (iterations() == max_iterations) stops the timer; the clocks are read before it starts.
    Slowdown &d = t_slowdown;
    if (d.fraction > 0 && !d.started) {
        burn_round_s(); // calibrated before the clock starts
        d.start_cpu = thread_cpu_s();
        d.start_mono = d.since = mono_s();
    } else if (d.fraction > 0 && !d.paused && !s.error_occurred() &&
               s.iterations() >= s.max_iterations) {
        slowdown_settle(d);
    }
#endif
    bool more = s.KeepRunning();
#ifdef HB_TEST_HOOKS
    if (d.fraction > 0 && more)
        d.started = true;
#endif
#ifdef HB_CALLGRIND
    if (RUNNING_ON_VALGRIND) {
        if (more && s.iterations() == 1) {
            CALLGRIND_START_INSTRUMENTATION;
            CALLGRIND_ZERO_STATS;
        } else if (!more) {
            std::string label = "hb:" + *callgrind_family() + "|";
            for (size_t i = 0; i < family_nargs()[*callgrind_family()]; i++)
                label += (i ? "," : "") + std::to_string(s.range(i));
            label += "|" + std::to_string(s.iterations());
            CALLGRIND_DUMP_STATS_AT(label.c_str());
            CALLGRIND_STOP_INSTRUMENTATION;
        }
    }
#endif
    if (!more && c.live) // the timer has stopped
        hb_counters_end(&c);
    return more;
}

int64_t hb_state_iterations(const hb_state *st)
{
    return S(st).iterations();
}

void hb_state_pause_timing(hb_state *st)
{
#ifdef HB_TEST_HOOKS
    // TEST-ONLY: the slowdown prices timed work only (hb_state_keep_running).
    Slowdown &d = t_slowdown;
    if (d.fraction > 0 && d.started && !d.paused) {
        d.timed += mono_s() - d.since;
        d.paused = true;
    }
#endif
    S(st).PauseTiming();
    hb_counters_pause(&counters());
}

void hb_state_resume_timing(hb_state *st)
{
    if (counters().started) // a resume inside the timed loop, not one before it
        hb_counters_resume(&counters());
    S(st).ResumeTiming();
#ifdef HB_TEST_HOOKS
    Slowdown &d = t_slowdown;
    if (d.fraction > 0 && d.paused) {
        d.paused = false;
        d.since = mono_s();
    }
#endif
}

void hb_state_set_bytes_processed(hb_state *st, int64_t bytes)
{
    // SetBytesProcessed displays binary prefixes; the suite reports decimal GB/s.
    S(st).counters["bytes_per_second"] =
        benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate,
                           benchmark::Counter::kIs1000);
}

void hb_state_set_items_processed(hb_state *st, int64_t items)
{
    S(st).SetItemsProcessed(items);
}

void hb_state_set_complexity_n(hb_state *st, int64_t n)
{
    S(st).SetComplexityN(n);
}

void hb_state_counter(hb_state *st, const char *name, double value, int flags)
{
    int f = benchmark::Counter::kDefaults;
    if (flags & HB_COUNTER_RATE)
        f |= benchmark::Counter::kIsRate;
    if (flags & HB_COUNTER_AVG_ITERS)
        f |= benchmark::Counter::kAvgIterations;
    S(st).counters[name] =
        benchmark::Counter(value, static_cast<benchmark::Counter::Flags>(f),
                           (flags & HB_COUNTER_1024) ? benchmark::Counter::kIs1024
                                                     : benchmark::Counter::kIs1000);
}

void hb_state_set_label(hb_state *st, const char *label)
{
    S(st).SetLabel(label);
}

void hb_state_fail(hb_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::string msg = "error: " + vformat(fmt, ap);
    va_end(ap);
    S(st).SkipWithError(msg.c_str());
}

void hb_state_skip(hb_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::string msg = kSkipPrefix + vformat(fmt, ap);
    va_end(ap);
    record_skip(st, nullptr, msg);
    S(st).SkipWithError(msg.c_str());
}

int hb_state_refusal(const hb_state *st, hb_skip *why, char *msg, size_t msgsz)
{
    const Refusal &r = this_call_refusal();
    if (!st || r.st != st)
        return 0;
    if (why)
        *why = r.why;
    if (msg && msgsz)
        std::snprintf(msg, msgsz, "%s", r.msg.c_str());
    return 1;
}

void hb_state_skip_with(hb_state *st, const hb_skip *why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::string msg = kSkipPrefix + vformat(fmt, ap);
    va_end(ap);
    record_skip(st, why, msg);
    S(st).SkipWithError(msg.c_str());
}

} // extern "C"
