# SPDX-License-Identifier: Apache-2.0
# Warnings for project targets only (linked PRIVATE), so consumers are not affected.
add_library(vmxkit_warnings INTERFACE)
target_compile_options(vmxkit_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough)
if(VMXKIT_WERROR)
  target_compile_options(vmxkit_warnings INTERFACE -Werror)
endif()
