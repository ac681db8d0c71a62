// SPDX-License-Identifier: Apache-2.0
// Test helpers: the shared corpus, temporary directories, running the CLI in-process.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace vmxkit::test {

/// `../shared/corpus/<sub>` (or `$VMXKIT_CORPUS_DIR/<sub>`); the tests that call it carry the
/// Catch tag [corpus] and fail (not skip) when it is missing.
std::filesystem::path corpus_dir(const std::string& sub);
/// Every regular file in a corpus folder with the extension (".vmx"), sorted by name.
std::vector<std::filesystem::path> corpus_files(const std::string& sub, const std::string& ext);
/// Every regular file with the extension under the repository's `examples/`, `tests/checks/` and
/// `tests/data/` (the repo's own fixtures: inputs for tests that must pass without the corpus;
/// not the fuzz seeds, which are not all text), sorted by path.
std::vector<std::filesystem::path> repo_files(const std::string& ext);
/// A path inside the source tree.
std::filesystem::path source_path(const std::string& relative);

std::string read_bytes(const std::filesystem::path& path);
void write_bytes(const std::filesystem::path& path, const std::string& data);

/// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// The result of one in-process run of the command line.
struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};
CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_data = {});

/// The result of a command run by /bin/sh, stdout and stderr together in `out`.
struct ShellResult {
  int code = -1;  ///< the exit status, or -1 when the command did not exit normally
  std::string out;
};
ShellResult run_shell(const std::string& command);

}  // namespace vmxkit::test
