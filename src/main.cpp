// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/output_stream.h"
#include "vmxkit/vmxkit.h"

namespace {

// An interrupted write must not leave its temporary file behind: remove it, then die of the
// same signal (default disposition), so the caller sees the signal and not an exit code.
// Everything here is async-signal-safe (unlink, sigaction, raise).
extern "C" void remove_temporaries_and_die(int sig) {
  vmxkit::remove_temporary_files();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);  // delivered when the handler returns (the signal is blocked while it runs)
}

void install_signal_handlers() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;  // `nohup vmxkit ...` keeps ignoring SIGHUP
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_die;
    sigfillset(&sa.sa_mask);  // no second signal runs the handler concurrently on this thread
    sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  vmxkit::cli::install_mapped_input_guard();
  // std::cout writes through a buffer that keeps the OS error of a failed write, for run() to
  // report; it is std::cout's again before main returns, as the buffer ends with main.
  vmxkit::cli::FdOutputBuffer stdout_buffer(STDOUT_FILENO);
  std::streambuf* const previous = std::cout.rdbuf(&stdout_buffer);
  int code = vmxkit::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cin, std::cout,
                              std::cerr);
  std::cout.rdbuf(previous);
  if (const std::string failure = vmxkit::cli::close_stdout_failure(); !failure.empty()) {
    std::cerr << "vmxkit: error: " << failure << '\n';
    if (code != vmxkit::cli::kExitInternal) code = vmxkit::cli::kExitInput;
  }
  return code;
}
