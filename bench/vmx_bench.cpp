// SPDX-License-Identifier: Apache-2.0
// vmxkit_bench [CORPUS_VMX_DIR] [MiB]: parse + re-emit a buffer built from the .vmx corpus, and
// compare with a vectorised newline count (std::count of '\n') over the same bytes in the same
// run. Prints MB/s for both and their ratio; the machine is noisy, so the ratio is the figure.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "vmxkit/formats/vmx/document.h"

namespace {

using Clock = std::chrono::steady_clock;

std::string build_buffer(const std::filesystem::path& dir, std::size_t target) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".vmx") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (!text.empty() && text.back() != '\n' && text.back() != '\r') text.push_back('\n');
    files.push_back(std::move(text));
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "no .vmx files in %s\n", dir.c_str());
    std::exit(2);
  }
  std::string buffer;
  buffer.reserve(target + (1 << 20));
  while (buffer.size() < target) {
    for (const std::string& f : files) buffer += f;
  }
  buffer.resize(target);
  return buffer;
}

template <typename F>
double best_seconds(int runs, F&& f) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path dir =
      argc > 1 ? argv[1] : std::filesystem::path(VMXKIT_CORPUS_DIR) / "vmx";
  const std::size_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const std::string buffer = build_buffer(dir, mib << 20);
  const double mb = static_cast<double>(buffer.size()) / 1e6;
  constexpr int kRuns = 7;

  volatile std::size_t sink = 0;
  const double t_count = best_seconds(kRuns, [&] {
    sink = sink + static_cast<std::size_t>(std::count(buffer.begin(), buffer.end(), '\n'));
  });

  std::size_t lines = 0;
  std::vector<std::string> inputs(kRuns, buffer);  // copies made outside the timed region
  std::string out;
  out.reserve(buffer.size());
  int run = 0;
  bool identical = true;
  const double t_parse_emit = best_seconds(kRuns, [&] {
    const auto doc =
        vmxkit::vmx::Document::parse(std::move(inputs[static_cast<std::size_t>(run++)]));
    out.clear();
    doc.write(out);
    lines = doc.lines().size();
  });
  identical = out == buffer;

  std::printf("input: %.1f MB, %zu lines, from %s\n", mb, lines, dir.c_str());
  std::printf("newline count (std::count, baseline): %8.0f MB/s\n", mb / t_count);
  std::printf("parse + emit (vmxkit):                %8.0f MB/s\n", mb / t_parse_emit);
  std::printf("ratio parse+emit / newline count:     1/%.1f (%.3f)\n", t_parse_emit / t_count,
              t_count / t_parse_emit);
  std::printf("round trip identical: %s\n", identical ? "yes" : "NO");
  return identical ? 0 : 1;
}
