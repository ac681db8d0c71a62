# SPDX-License-Identifier: Apache-2.0
# vmxkit_embed_files(TARGET NAME FILES...) compiles data files into TARGET as a table
#   struct EmbeddedFile { std::string_view name; std::string_view data; };
#   extern const vmxkit::EmbeddedFile NAME[]; extern const std::size_t NAME_count;
# The generated source is rebuilt when any input changes, so the binary never reads these files
# at run time and works from any directory.
function(vmxkit_embed_files target name)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}.cpp")
  set(inputs ${ARGN})
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAME=${name} "-DINPUTS=${inputs}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_files_run.cmake"
    DEPENDS ${inputs} "${PROJECT_SOURCE_DIR}/cmake/embed_files_run.cmake"
    COMMENT "Embedding ${name}" VERBATIM)
  # The custom command belongs to the calling directory; a target there builds it, so targets
  # defined in other directories (vmxkit_core is defined at the top) can use the output.
  add_custom_target(${name}_generate DEPENDS "${out}")
  add_dependencies(${target} ${name}_generate)
  target_sources(${target} PRIVATE "${out}")
endfunction()
