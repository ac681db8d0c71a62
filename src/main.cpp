// SPDX-License-Identifier: Apache-2.0
#include <iostream>

#include "cli/cli.h"

int main(int argc, char** argv) {
  return vmxkit::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cin, std::cout,
                          std::cerr);
}
