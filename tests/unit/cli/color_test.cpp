// SPDX-License-Identifier: Apache-2.0
// Colour is decided per stream: what goes to stdout is coloured when stdout is a terminal, what
// goes to stderr when stderr is; NO_COLOR (non-empty) turns `auto` off; `--color always` wins.
#include "cli/color.h"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "support/support.h"

using vmxkit::cli::ColorChoice;
using vmxkit::cli::use_color;
using vmxkit::test::run_cli;

namespace {

// Findings on stdout for lint, and on stderr for fix (the ones it cannot fix).
const std::string kVm =
    "firmware = \"efi\"\n"
    "pciPassthru0.present = \"TRUE\"\n"
    "pciPassthru0.id = \"0000:3b:00.0\"\n";

bool has_escape(const std::string& s) { return s.find("\x1b[") != std::string::npos; }

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Runs a shell command under `script`, so that the process gets a pseudo-terminal for what the
// command does not redirect; returns what reached the terminal.
std::string run_on_terminal(const std::string& command, const vmxkit::test::TempDir& dir) {
  const auto transcript = dir / "terminal.log";
  std::filesystem::remove(transcript);
  const std::string shell =
      "script -qc \"" + command + "\" '" + transcript.string() + "' </dev/null >/dev/null 2>&1";
  INFO(shell);
  CHECK(std::system(shell.c_str()) == 0);  // script's own status: the command's is not passed on
  REQUIRE(std::filesystem::exists(transcript));
  return vmxkit::test::read_bytes(transcript);
}

}  // namespace

TEST_CASE(
    "auto colours where FORCE_COLOR is set, else a terminal unless NO_COLOR is set, and always and "
    "never win",
    "[cli][color]") {
  CHECK(use_color(ColorChoice::automatic, true, nullptr));
  CHECK(use_color(ColorChoice::automatic, true, ""));
  CHECK_FALSE(use_color(ColorChoice::automatic, true, "1"));
  CHECK_FALSE(use_color(ColorChoice::automatic, false, nullptr));
  CHECK(use_color(ColorChoice::always, false, "1"));
  CHECK_FALSE(use_color(ColorChoice::never, true, nullptr));
  // FORCE_COLOR (force-color.org): any non-empty value colours a pipe, even with NO_COLOR.
  CHECK(use_color(ColorChoice::automatic, false, nullptr, "1"));
  CHECK(use_color(ColorChoice::automatic, false, "1", "0"));
  CHECK_FALSE(use_color(ColorChoice::automatic, false, nullptr, ""));
  CHECK_FALSE(use_color(ColorChoice::never, false, nullptr, "1"));
}

TEST_CASE("the --color always option colours the stream each command writes its findings to",
          "[cli][color]") {
  const ScopedEnv no_color("NO_COLOR", std::nullopt);
  auto r = run_cli({"--color", "always", "lint", "-"}, kVm);
  CHECK(r.code == 1);
  CHECK(has_escape(r.out));
  CHECK(r.out.find("\x1b[1;31merror: \x1b[0m") != std::string::npos);
  CHECK_FALSE(has_escape(r.err));
  // After the subcommand too.
  r = run_cli({"lint", "-", "--color", "always"}, kVm);
  CHECK(has_escape(r.out));
  // fix writes the fixed file to stdout and what remains to stderr.
  r = run_cli({"fix", "--color", "always", "-"}, kVm);
  CHECK(r.code == 1);
  CHECK_FALSE(has_escape(r.out));
  CHECK(has_escape(r.err));
  // The malformed-line warnings of an edit go to stderr.
  r = run_cli({"--color", "always", "get", "-", "firmware"},
              "firmware = \"efi\"\nno equals sign\n");
  CHECK(r.out == "efi\n");
  CHECK(has_escape(r.err));
  CHECK(run_cli({"--color", "sometimes", "lint", "-"}, kVm).code == 2);
}

TEST_CASE("without --color, string streams get no colour, and never and NO_COLOR agree",
          "[cli][color]") {
  {
    const ScopedEnv no_color("NO_COLOR", std::nullopt);
    const auto r = run_cli({"fix", "-"}, kVm);
    CHECK_FALSE(has_escape(r.out));
    CHECK_FALSE(has_escape(r.err));
    CHECK_FALSE(has_escape(run_cli({"lint", "-"}, kVm).out));
    CHECK_FALSE(has_escape(run_cli({"--color", "never", "lint", "-"}, kVm).out));
  }
  const ScopedEnv no_color("NO_COLOR", "1");
  CHECK_FALSE(has_escape(run_cli({"lint", "-"}, kVm).out));
  CHECK(has_escape(run_cli({"--color", "always", "lint", "-"}, kVm).out));
}

TEST_CASE("the vmxkit binary colours stdout only when stdout is a terminal", "[cli][color]") {
  const ScopedEnv no_color("NO_COLOR", std::nullopt);
  vmxkit::test::TempDir dir;
  const auto vm = dir / "vm.vmx";
  vmxkit::test::write_bytes(vm, kVm);
  const std::string lint = std::string("'") + VMXKIT_BINARY + "' lint '" + vm.string() + "'";
  // stderr on the terminal, the report into a file: no escape codes in the file.
  const auto report = dir / "report.txt";
  run_on_terminal(lint + " > '" + report.string() + "'", dir);
  const std::string in_file = vmxkit::test::read_bytes(report);
  CHECK(in_file.find("error: ") != std::string::npos);
  CHECK_FALSE(has_escape(in_file));
  // The report on the terminal: coloured, unless NO_COLOR says otherwise.
  CHECK(has_escape(run_on_terminal(lint, dir)));
  CHECK_FALSE(has_escape(run_on_terminal("NO_COLOR=1 " + lint, dir)));
  CHECK(has_escape(run_on_terminal("NO_COLOR= " + lint, dir)));
  // fix with stdout thrown away: what it could not fix goes to stderr, coloured on a terminal.
  const std::string fix = std::string("'") + VMXKIT_BINARY + "' fix '" + vm.string() + "'";
  CHECK(has_escape(run_on_terminal(fix + " 2>&1 >/dev/null", dir)));
}
