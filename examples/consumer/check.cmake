# SPDX-License-Identifier: Apache-2.0
# Installs a built vmxkit tree to a scratch prefix, checks that exactly the public headers were
# installed (vmxkit/vmxkit.h and what it includes), builds examples/consumer against the installed
# package only with find_package(vmxkit) (vmxkit::client and vmxkit::graphviz, and through them
# vmxkit::core), and runs it on an example VM and host, and against a server that is not there.
# Run as a ctest test, or by hand:
#   cmake -DBUILD_DIR=<vmxkit build dir> -DSOURCE_DIR=<vmxkit source dir> -DWORK_DIR=<scratch dir>
#         -DVERSION=<project version> -P examples/consumer/check.cmake
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR VERSION)
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

# The installed headers are vmxkit.h and what it reaches, each of those is installed, and no
# internal header is.
set(include_dir "${prefix}/include")
set(include_re "^[ \t]*#[ \t]*include[ \t]*[<\"](vmxkit/[^>\"]+)[>\"]")
set(reached "")
set(queue vmxkit/vmxkit.h)
while(queue)
  list(POP_FRONT queue header)
  if(header IN_LIST reached)
    continue()
  endif()
  if(NOT EXISTS "${include_dir}/${header}")
    message(FATAL_ERROR "${header} is included by the public headers but not installed")
  endif()
  list(APPEND reached "${header}")
  file(STRINGS "${include_dir}/${header}" lines REGEX "${include_re}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "${include_re}.*" "\\1" included "${line}")
    list(APPEND queue "${included}")
  endforeach()
endwhile()
file(GLOB_RECURSE installed RELATIVE "${include_dir}" "${include_dir}/*")
foreach(file IN LISTS installed)
  if(NOT file IN_LIST reached)
    message(FATAL_ERROR "${file} is installed but is not a public header (not reached from "
                        "vmxkit/vmxkit.h)")
  endif()
endforeach()

run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j2)

function(expect what)
  foreach(expected IN LISTS ARGN)
    string(FIND "${out}" "${expected}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the consumer's ${what} output lacks '${expected}':\n${out}")
    endif()
  endforeach()
endfunction()
set(vm "${SOURCE_DIR}/examples/vmx/gpu-rdma-worker.vmx")
set(host "${SOURCE_DIR}/examples/hosts/synthetic-2s-4sw-8gpu-8nic.lspci-vvv.txt")
set(uuid 65a1b2c3-d4e5-f607-1829-3a4b5c6d7e8f)
run("${WORK_DIR}/build/vmxkit_consumer" "${vm}" "${host}" ${uuid})
expect(vmx
       "# vmxkit ${VERSION}\n"
       "# pciPassthru0: directpath 00000:059:00.0\n"
       "gpu-rdma-worker.vmx:6:13: error: firmware is 'bios'"
       "# 4 problem(s), 3 error(s)\n"
       "# plan: GPU0 <-> NIC0: PIX (ok)\n"
       "pciPassthru0.id = \"00000:024:00.0\"\n"
       "pciPassthru.64bitMMIOSizeGB = \"512\"\n"
       "# 0 problem(s), 0 error(s)\n"
       "# diagram: svg\n")
run("${WORK_DIR}/build/vmxkit_consumer" "${vm}" "${host}" ${uuid} soap)
expect(soap "<_this type=\"VirtualMachine\">vm-1</_this>" "<id>0000:18:00.0</id>"
       "<key>pciPassthru.64bitMMIOSizeGB</key>")
# vmxkit::client links from the installed package: apply_plan() gets as far as the server, which
# is not there (nothing listens on port 9), and says so.
execute_process(COMMAND "${WORK_DIR}/build/vmxkit_consumer" "${vm}" "${host}" ${uuid} vmx
                        https://user:secret@127.0.0.1:9/sdk
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 2 OR NOT err MATCHES "vmxkit_consumer: https://127.0.0.1:9/sdk: cannot connect")
  message(FATAL_ERROR "the consumer's apply to a server that is not there: ${rc}\n${out}\n${err}")
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
message(STATUS "find_package(vmxkit) consumer: OK")
