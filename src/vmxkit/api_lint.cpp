// SPDX-License-Identifier: Apache-2.0
// The facade's lint and fix beyond one loaded input (vmxkit/vmxkit.h): rule selection, many
// files linted on several threads and handed over in order, the lint report written as the
// files come (report/lint_report.h), fix of bytes with its findings placed in the original, and
// what `lint --host` checks of a host.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "vmxkit/api_internal.h"
#include "vmxkit/checks/check.h"
#include "vmxkit/checks/engine.h"
#include "vmxkit/core/io.h"
#include "vmxkit/report/diagnostic_text.h"
#include "vmxkit/report/lint_report.h"
#include "vmxkit/vmxkit.h"

namespace vmxkit {

namespace {

// How specific `selector` is for `rule_id`: its length (ALL: 0), or -1 when it does not match.
int selector_match(std::string_view selector, std::string_view rule_id) {
  if (selector == "ALL") return 0;
  return rule_id.starts_with(selector) ? static_cast<int>(selector.size()) : -1;
}

int best_selector_match(const std::vector<std::string>& a, const std::vector<std::string>& b,
                        std::string_view rule_id) {
  int best = -1;
  for (const auto* list : {&a, &b}) {
    for (const std::string& s : *list) best = std::max(best, selector_match(s, rule_id));
  }
  return best;
}

// Files linted on `jobs` threads (the caller's and jobs - 1 workers), their outcomes handed to
// the caller in file order: at most `slots_` outcomes are ever held (the next one to hand over
// and those linted ahead of it), so the memory does not grow with the number of files. The
// caller lints too while the next outcome is not ready, instead of sleeping.
class OrderedLint {
 public:
  struct Item {
    LintFileResult result;
    std::exception_ptr exception;  ///< not a vmxkit::Error: a bug, rethrown by take()
  };

  OrderedLint(std::vector<DocumentSource>& files, const checks::LintOptions& options,
              const RuleSelection& rules, unsigned jobs)
      : files_(files), options_(options), rules_(rules), slots_(4 * std::size_t{jobs} + 4) {
    for (unsigned t = 1; t < jobs; ++t) threads_.emplace_back([this] { work(); });
  }

  ~OrderedLint() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    space_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  OrderedLint(const OrderedLint&) = delete;
  OrderedLint& operator=(const OrderedLint&) = delete;

  /// The outcome of the next file in order; call once per file.
  LintFileResult take() {
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[taken_ % slots_.size()];
    while (!slot.done) {
      if (can_start()) {
        const std::size_t i = next_++;
        lock.unlock();
        Item item = lint_one(i);
        lock.lock();
        store(i, std::move(item));
      } else {
        ready_.wait(lock, [&] { return slot.done; });
      }
    }
    Item item = std::move(slot.item);
    slot = Slot{};
    ++taken_;
    const bool wake = waiting_ > 0;
    lock.unlock();
    if (wake) space_.notify_all();
    if (item.exception) std::rethrow_exception(item.exception);
    return std::move(item.result);
  }

 private:
  struct Slot {
    Item item;
    bool done = false;
  };

  // With the lock held: a file is left and its outcome has a slot.
  bool can_start() const { return next_ < files_.size() && next_ < taken_ + slots_.size(); }

  // Only the thread that took file `i` touches its source (its bytes are moved out).
  Item lint_one(std::size_t i) const {
    DocumentSource& source = files_[i];
    Item item;
    item.result.path = source.path;
    try {
      std::string bytes = source.bytes ? std::move(*source.bytes) : read_file(source.path);
      source.bytes.reset();
      checks::LintResult r = checks::lint(source.path, std::move(bytes), options_);
      rules_.filter(r.diagnostics);
      item.result.report = detail::to_lint_report(std::move(r));
    } catch (const Error& e) {
      item.result.error = e.what();
    } catch (...) {
      item.exception = std::current_exception();
    }
    return item;
  }

  // With the lock held.
  void store(std::size_t i, Item item) {
    Slot& slot = slots_[i % slots_.size()];
    slot.item = std::move(item);
    slot.done = true;
  }

  void work() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++waiting_;
      space_.wait(lock, [&] { return stop_ || next_ >= files_.size() || can_start(); });
      --waiting_;
      if (stop_ || next_ >= files_.size()) return;
      const std::size_t i = next_++;
      lock.unlock();
      Item item = lint_one(i);
      lock.lock();
      const bool wanted = i == taken_;
      store(i, std::move(item));
      if (wanted) ready_.notify_one();
    }
  }

  std::vector<DocumentSource>& files_;
  const checks::LintOptions& options_;
  const RuleSelection& rules_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable ready_;  // the slot of the next file to hand over was filled
  std::condition_variable space_;  // a slot was emptied
  std::size_t next_ = 0;           // the next file to lint
  std::size_t taken_ = 0;          // the next file take() hands over
  std::size_t waiting_ = 0;        // workers waiting for a slot
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace

// --- rule selection

void RuleSelection::validate() const {
  const auto& all = checks::all_checks();
  for (const auto* list : {&select, &extend_select, &ignore, &extend_ignore}) {
    for (const std::string& s : *list) {
      const bool known = std::any_of(all.begin(), all.end(), [&](const checks::Check* c) {
        return c->kind == checks::Kind::lint && selector_match(s, c->id) >= 0;
      });
      if (!known) {
        throw Error(fmt::format(
            "'{}' selects no lint rule: give a rule id (PT004), a prefix of ids (PT, MMIO0) or "
            "ALL; `vmxkit rules --kind lint` lists them",
            s));
      }
    }
  }
}

bool RuleSelection::enabled(std::string_view rule_id) const {
  // No `select`: every rule, as `ALL`.
  const int selected = select.empty() ? std::max(0, best_selector_match({}, extend_select, rule_id))
                                      : best_selector_match(select, extend_select, rule_id);
  const int ignored = best_selector_match(ignore, extend_ignore, rule_id);
  return selected >= 0 && selected > ignored;
}

void RuleSelection::filter(std::vector<Diagnostic>& diagnostics) const {
  if (empty()) return;
  diagnostics.erase(std::remove_if(diagnostics.begin(), diagnostics.end(),
                                   [this](const Diagnostic& d) { return !enabled(d.rule_id); }),
                    diagnostics.end());
}

// --- many files

void lint_files(std::vector<DocumentSource> files, const LintFilesOptions& options,
                const std::function<void(LintFileResult)>& each) {
  const checks::LintOptions lint_options = detail::internal_lint_options(options.lint);
  const unsigned cores = std::thread::hardware_concurrency();
  const unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs != 0 ? options.jobs : cores,
                                                        static_cast<unsigned>(files.size())));
  OrderedLint lint(files, lint_options, options.rules, jobs);
  for (std::size_t i = 0; i < files.size(); ++i) each(lint.take());
}

// --- the report, written as the files come

// Not in the anonymous namespace: a member of Impl, which has linkage, may not be of a type
// that has none (-Wsubobject-linkage, where the unity build includes this file).
struct LintReportWriter::Impl {
  // A stream buffer that hands what is written to a function: small writes gathered into pieces
  // of up to kSize bytes, a larger one passed on as it is, without a copy. drain() hands over
  // what is gathered. The buffer is part of the writer, not a block of its own: freeing a heap
  // block of 64 KiB or more makes glibc consolidate its free lists, which after a large lint
  // cost 11 million instructions (3% of linting 100,000 lines).
  class SinkBuffer final : public std::streambuf {
   public:
    explicit SinkBuffer(std::function<void(std::string_view)> sink) : sink_(std::move(sink)) {
      setp(buffer_.data(), buffer_.data() + buffer_.size());
    }

    void drain() {
      const auto n = static_cast<std::size_t>(pptr() - pbase());
      if (n == 0) return;
      setp(buffer_.data(), buffer_.data() + buffer_.size());  // emptied even when the sink throws
      sink_(std::string_view(buffer_.data(), n));
    }

   protected:
    int_type overflow(int_type c) override {
      drain();
      if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
      }
      return traits_type::not_eof(c);
    }

    std::streamsize xsputn(const char* s, std::streamsize n) override {
      if (n > epptr() - pptr()) {
        drain();
        if (n >= epptr() - pptr()) {
          sink_(std::string_view(s, static_cast<std::size_t>(n)));
          return n;
        }
      }
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }

    int sync() override {
      drain();
      return 0;
    }

   private:
    static constexpr std::size_t kSize = 8192;
    std::function<void(std::string_view)> sink_;
    std::array<char, kSize> buffer_;
  };

  explicit Impl(std::function<void(std::string_view)> output)
      : buffer(std::move(output)), os(&buffer) {
    os.exceptions(std::ios::badbit);  // what the output throws leaves the writer
  }
  SinkBuffer buffer;
  std::ostream os;
  std::unique_ptr<report::ReportWriter> writer;
};

LintReportWriter::LintReportWriter(std::string_view format,
                                   std::function<void(std::string_view)> output, bool color) {
  if (format != "text" && format != "json" && format != "sarif") {
    throw Error(fmt::format("'{}' is not a lint report format: text, json or sarif", format));
  }
  impl_ = std::make_unique<Impl>(std::move(output));
  impl_->writer = report::make_report_writer(format, impl_->os, color);
  impl_->buffer.drain();
}

LintReportWriter::~LintReportWriter() = default;

void LintReportWriter::add(const LintReport& report) {
  impl_->writer->add_file(
      {report.path, report.bytes, report.format, report.diagnostics, report.lines});
  impl_->buffer.drain();
}

void LintReportWriter::add_unread() { impl_->writer->add_unread(); }

void LintReportWriter::finish() {
  impl_->writer->finish();
  impl_->buffer.drain();
}

// --- fix

FixResult fix(const std::string& path, std::string bytes, const FixOptions& options) {
  checks::FixResult r = checks::fix(path, std::move(bytes),
                                    detail::internal_lint_options(options.lint), options.unsafe);
  FixResult out;
  out.bytes = std::move(r.bytes);
  out.fixes_applied = r.fixes_applied;
  out.fixed_rules = std::move(r.fixed_rules);
  out.remaining = detail::to_lint_report(std::move(r.remaining));
  out.passes = std::move(r.passes);
  return out;
}

Diagnostic in_original(const FixResult& result, std::string_view original, Diagnostic d) {
  return checks::in_original(result.passes, original, std::move(d));
}

std::string render_diagnostics(std::string_view path, std::string_view text, const LineIndex& lines,
                               const std::vector<Diagnostic>& diagnostics, bool color) {
  report::DiagnosticPrinter printer(path, text, lines, color);
  std::string out;
  for (const Diagnostic& d : diagnostics) printer.print(out, d);
  return out;
}

}  // namespace vmxkit
