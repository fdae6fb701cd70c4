# The files other builds use to find instr (docs/build-systems.md): pkg-config (instr.pc), the
# CMake package (instrConfig.cmake: find_package(instr), instr_instrument()) and an Lmod
# modulefile. Each finds the prefix relative to itself; they are written into the build tree
# too, which has the install tree's shape.
# What libinstr-rt.a needs after it (runtime/CMakeLists.txt): instr.pc's Libs.private and
# instr::runtime_static's link interface.
list(TRANSFORM INSTR_RT_STATIC_LIBS PREPEND "-l" OUTPUT_VARIABLE INSTR_PC_LIBS_PRIVATE)
string(REPLACE ";" " " INSTR_PC_LIBS_PRIVATE "${INSTR_PC_LIBS_PRIVATE}")
set(INSTR_CMAKE_STATIC_LIBS "${INSTR_RT_STATIC_LIBS}")
# What each file's directory is below the prefix, and the way back up to the prefix.
set(INSTR_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
set(INSTR_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/instr)
set(INSTR_MODULE_DIR ${CMAKE_INSTALL_DATADIR}/modulefiles/instr)
file(RELATIVE_PATH INSTR_PC_TO_PREFIX /instr-prefix/${INSTR_PC_DIR} /instr-prefix)
file(RELATIVE_PATH INSTR_CMAKE_TO_PREFIX /instr-prefix/${INSTR_CMAKE_DIR} /instr-prefix)
string(REGEX MATCHALL "[^/]+" _module_parts "${INSTR_MODULE_DIR}/file")
list(LENGTH _module_parts INSTR_MODULE_DEPTH) # path components from the prefix to the file

set(_pkg ${CMAKE_CURRENT_LIST_DIR})
configure_file(${_pkg}/instr.pc.in ${CMAKE_BINARY_DIR}/${INSTR_PC_DIR}/instr.pc @ONLY)
configure_file(${_pkg}/instrConfig.cmake.in ${CMAKE_BINARY_DIR}/${INSTR_CMAKE_DIR}/instrConfig.cmake
               @ONLY)
configure_file(${_pkg}/instrConfigVersion.cmake.in
               ${CMAKE_BINARY_DIR}/${INSTR_CMAKE_DIR}/instrConfigVersion.cmake @ONLY)
configure_file(${_pkg}/instr.lua.in
               ${CMAKE_BINARY_DIR}/${INSTR_MODULE_DIR}/${PROJECT_VERSION}.lua @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/${INSTR_PC_DIR}/instr.pc DESTINATION ${INSTR_PC_DIR})
install(FILES ${CMAKE_BINARY_DIR}/${INSTR_CMAKE_DIR}/instrConfig.cmake
              ${CMAKE_BINARY_DIR}/${INSTR_CMAKE_DIR}/instrConfigVersion.cmake
        DESTINATION ${INSTR_CMAKE_DIR})
install(FILES ${CMAKE_BINARY_DIR}/${INSTR_MODULE_DIR}/${PROJECT_VERSION}.lua
        DESTINATION ${INSTR_MODULE_DIR})
