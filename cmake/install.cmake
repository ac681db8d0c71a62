# SPDX-License-Identifier: Apache-2.0
# Installs the library as a CMake package: find_package(vmxkit) gives vmxkit::core with the
# headers under include/vmxkit/ (the same include paths as in the source tree).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(vmxkit_core PROPERTIES EXPORT_NAME core)
set_target_properties(vmxkit_warnings PROPERTIES EXPORT_NAME warnings)
install(TARGETS vmxkit_core vmxkit_warnings EXPORT vmxkitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/vmxkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(EXPORT vmxkitTargets NAMESPACE vmxkit:: FILE vmxkitTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vmxkitConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/vmxkitConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vmxkitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vmxkitConfig.cmake ${PROJECT_BINARY_DIR}/vmxkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/vmxkit)
