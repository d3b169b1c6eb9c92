# Installs the libraries, the public headers under <prefix>/include/tensortune/, the
# `tt` tool, the shipped tuning databases under <prefix>/share/tensortune/db (found
# relative to the program or library at run time, so a moved prefix still finds them)
# and a CMake package: find_package(tensortune) gives tensortune::tensortune (the whole
# API, <tensortune/tensortune.h>) and tensortune::cli (tt::cli::main, <tensortune/cli.h>).
include(CMakePackageConfigHelpers)

install(TARGETS tensortune tt_cli tt_core tt_ops tt_autotune tt_distributed tt_models tt
  EXPORT tensortuneTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tensortune/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensortune
  FILES_MATCHING PATTERN "*.h")
foreach(_dir core ops autotune distributed models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensortune/${_dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/core/version.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tensortune/core)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/autotune/db/ DESTINATION ${CMAKE_INSTALL_DATADIR}/tensortune/db
  OPTIONAL FILES_MATCHING PATTERN "*.yaml")
install(EXPORT tensortuneTargets NAMESPACE tensortune::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensortune)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tensortuneConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tensortuneConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensortune)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tensortuneConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tensortuneConfig.cmake
  ${PROJECT_BINARY_DIR}/tensortuneConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tensortune)
