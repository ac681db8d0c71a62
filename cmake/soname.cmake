# SPDX-License-Identifier: Apache-2.0
# The soname of a shared library found at build time, for the libraries vmxkit loads on first use
# (dlopen) instead of linking: libxml2, Graphviz.
function(vmxkit_soname library out)
  # libgvc.so.6.0.0 -> libgvc.so.6 (the name the dynamic linker knows the ABI by)
  file(REAL_PATH "${library}" real)
  get_filename_component(name "${real}" NAME)
  if(name MATCHES "^(.*\\.so\\.[0-9]+)")
    set(name "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${name}" PARENT_SCOPE)
endfunction()
