// SPDX-License-Identifier: Apache-2.0
#include <csignal>
#include <iostream>

#include "cli/cli.h"
#include "vmxkit/core/io.h"

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
  return vmxkit::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cin, std::cout,
                          std::cerr);
}
