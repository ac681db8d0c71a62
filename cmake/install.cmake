# SPDX-License-Identifier: Apache-2.0
# Installs the library as a CMake package: find_package(vmxkit) gives vmxkit::core with the public
# headers under include/vmxkit/ (the same include paths as in the source tree); vmxkit::client,
# the vSphere client that the facade's apply_plan() drives (libcurl is loaded when it first
# talks to a server, not linked); and vmxkit::graphviz, render_svg() (Graphviz's libraries are
# loaded when it first lays a diagram out, not linked).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The public headers: vmxkit/vmxkit.h and every header it includes, directly or through another.
# Only these are installed; the other headers of the modules are internal and change freely.
# Adding a header here makes it API.
set(VMXKIT_PUBLIC_HEADERS
  vmxkit/vmxkit.h
  vmxkit/core/diagnostic.h
  vmxkit/core/error.h
  vmxkit/core/pci_address.h
  vmxkit/core/signal_safe.h
  vmxkit/core/source_file.h
  vmxkit/core/text_edit.h
  vmxkit/model/vm_config.h)

# Fails the configure step unless VMXKIT_PUBLIC_HEADERS is exactly what vmxkit.h reaches through
# its `#include "vmxkit/..."` lines, so no public header includes an internal one. Reruns when
# one of those headers changes.
function(vmxkit_check_public_headers)
  set(reached "")
  set(queue vmxkit/vmxkit.h)
  set(include_re "^[ \t]*#[ \t]*include[ \t]*[<\"](vmxkit/[^>\"]+)[>\"]")
  while(queue)
    list(POP_FRONT queue header)
    if(header IN_LIST reached)
      continue()
    endif()
    list(APPEND reached "${header}")
    set(file "${PROJECT_SOURCE_DIR}/src/${header}")
    set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    file(STRINGS "${file}" lines REGEX "${include_re}")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "${include_re}.*" "\\1" included "${line}")
      if(NOT included IN_LIST VMXKIT_PUBLIC_HEADERS)
        message(FATAL_ERROR "src/${header} includes ${included}, an internal header: public headers "
                            "may include public ones only (VMXKIT_PUBLIC_HEADERS in cmake/install.cmake)")
      endif()
      list(APPEND queue "${included}")
    endforeach()
  endwhile()
  foreach(header IN LISTS VMXKIT_PUBLIC_HEADERS)
    if(NOT header IN_LIST reached)
      message(FATAL_ERROR "cmake/install.cmake: ${header} is listed as public, but vmxkit/vmxkit.h "
                          "does not include it")
    endif()
  endforeach()
endfunction()
vmxkit_check_public_headers()

set_target_properties(vmxkit_core PROPERTIES EXPORT_NAME core)
set_target_properties(vmxkit_client PROPERTIES EXPORT_NAME client)
set_target_properties(vmxkit_graphviz PROPERTIES EXPORT_NAME graphviz)
set_target_properties(vmxkit_warnings PROPERTIES EXPORT_NAME warnings)
install(TARGETS vmxkit_core vmxkit_client vmxkit_graphviz vmxkit_warnings EXPORT vmxkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(header IN LISTS VMXKIT_PUBLIC_HEADERS)
  get_filename_component(dir "${header}" DIRECTORY)
  install(FILES "${PROJECT_SOURCE_DIR}/src/${header}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/${dir}")
endforeach()
install(EXPORT vmxkitTargets NAMESPACE vmxkit:: FILE vmxkitTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vmxkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/vmxkitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vmxkitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vmxkitConfig.cmake ${PROJECT_BINARY_DIR}/vmxkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
