# SPDX-License-Identifier: Apache-2.0
# Installs a built vmxkit tree to a scratch prefix, builds examples/consumer against the installed
# package with find_package(vmxkit) and runs it on a plan. Run as a ctest test, or by hand:
#   cmake -DBUILD_DIR=<vmxkit build dir> -DSOURCE_DIR=<vmxkit source dir> -DWORK_DIR=<scratch dir>
#         -P examples/consumer/check.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 600)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j2)
run("${WORK_DIR}/build/vmxkit_consumer" "${SOURCE_DIR}/tests/data/vsphere/plans/p2p_gpu_nic.vmx")
foreach(expected "# pciPassthru0: directpath 00000:059:00.0" "<id>0000:3b:00.0</id>"
                 "<vendorId>-32634</vendorId>")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the consumer's output lacks '${expected}':\n${out}")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "find_package(vmxkit) consumer: OK")
