# The files other builds use to find instr (docs/build-systems.md): pkg-config (instr.pc), the
# CMake package (instrConfig.cmake: find_package(instr), instr_instrument()) and an Lmod
# modulefile. Each finds the prefix relative to itself; they are written into the build tree
# too, which has the install tree's shape.
set(_pkg_static_libs "")
if(INSTR_RT_HAVE_TRACE)
  set(_pkg_static_libs ${INSTR_OTF2_LIBRARY})
endif()
set(_pkg ${CMAKE_CURRENT_LIST_DIR})
configure_file(${_pkg}/instr.pc.in ${CMAKE_BINARY_DIR}/lib/pkgconfig/instr.pc @ONLY)
configure_file(${_pkg}/instrConfig.cmake.in ${CMAKE_BINARY_DIR}/lib/cmake/instr/instrConfig.cmake
               @ONLY)
configure_file(${_pkg}/instrConfigVersion.cmake.in
               ${CMAKE_BINARY_DIR}/lib/cmake/instr/instrConfigVersion.cmake @ONLY)
configure_file(${_pkg}/instr.lua.in
               ${CMAKE_BINARY_DIR}/share/modulefiles/instr/${PROJECT_VERSION}.lua @ONLY)
# lib, not CMAKE_INSTALL_LIBDIR: the wrapper and these files find the runtime in <prefix>/lib
install(FILES ${CMAKE_BINARY_DIR}/lib/pkgconfig/instr.pc DESTINATION lib/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/lib/cmake/instr/instrConfig.cmake
              ${CMAKE_BINARY_DIR}/lib/cmake/instr/instrConfigVersion.cmake
        DESTINATION lib/cmake/instr)
install(FILES ${CMAKE_BINARY_DIR}/share/modulefiles/instr/${PROJECT_VERSION}.lua
        DESTINATION share/modulefiles/instr)
