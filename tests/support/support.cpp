// SPDX-License-Identifier: Apache-2.0
#include "support/support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/cli.h"

namespace vmxkit::test {

std::filesystem::path corpus_dir(const std::string& sub) {
  // The environment may point elsewhere (a test of the suite without the corpus sets it to a
  // folder that does not exist).
  const char* env = std::getenv("VMXKIT_CORPUS_DIR");
  std::filesystem::path dir =
      std::filesystem::path(env != nullptr && *env != '\0' ? env : VMXKIT_CORPUS_DIR) / sub;
  if (!std::filesystem::is_directory(dir)) {
    throw std::runtime_error("corpus folder missing: " + dir.string());
  }
  return dir;
}

std::vector<std::filesystem::path> corpus_files(const std::string& sub, const std::string& ext) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir(sub))) {
    if (entry.is_regular_file() && entry.path().extension() == ext) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no " + ext + " files in corpus/" + sub);
  return files;
}

std::vector<std::filesystem::path> repo_files(const std::string& ext) {
  std::vector<std::filesystem::path> files;
  for (const char* top : {"examples", "tests/checks", "tests/data"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path(top))) {
      if (entry.is_regular_file() && entry.path().extension() == ext) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw std::runtime_error("no " + ext + " files in examples/ or tests/");
  return files;
}

std::filesystem::path source_path(const std::string& relative) {
  return std::filesystem::path(VMXKIT_SOURCE_DIR) / relative;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_bytes(const std::filesystem::path& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vmxkit-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_data) {
  std::istringstream in(stdin_data);
  std::ostringstream out;
  std::ostringstream err;
  CliResult r;
  r.code = cli::run(args, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

ShellResult run_shell(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("cannot run: " + command);
  ShellResult r;
  std::array<char, 4096> buf{};
  while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) {
    r.out.append(buf.data(), n);
  }
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace vmxkit::test
