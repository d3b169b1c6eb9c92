# Installs the libraries, headers and the `tt` tool, plus a CMake package so that an
# outside project can find_package(tensortune) and link tensortune::tt_models.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tt_core tt_ops tt_autotune tt_models tt
  EXPORT tensortuneTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(_dir core ops autotune models)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/ DESTINATION include/tensortune/${_dir}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.cuh")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/core/version.h DESTINATION include/tensortune/core)
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
