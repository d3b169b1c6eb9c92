# tt_add_library(NAME CPP_GLOBS ... [CUDA_GLOBS ...] [DEPS ...] [PRIVATE_DEPS ...]): one
# library per top-level folder, static or shared as BUILD_SHARED_LIBS says. Sources
# are globbed so that a new op or kernel file needs no CMake edit; CUDA sources join
# only when TT_CUDA is on. DEPS are public (a public header needs them); PRIVATE_DEPS
# only build this library: header-only ones (Eigen, nlohmann_json) stay out of the
# installed package, compiled ones are linked (a static install still needs them).
function(tt_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>)
endfunction()

function(tt_add_library name)
  cmake_parse_arguments(ARG "" "" "CPP_GLOBS;CUDA_GLOBS;DEPS;PRIVATE_DEPS" ${ARGN})
  file(GLOB _cpp CONFIGURE_DEPENDS ${ARG_CPP_GLOBS})
  set(_srcs ${_cpp})
  if(TT_CUDA AND ARG_CUDA_GLOBS)
    file(GLOB _cu CONFIGURE_DEPENDS ${ARG_CUDA_GLOBS})
    list(APPEND _srcs ${_cu})
  endif()
  add_library(${name} ${_srcs})
  add_library(tensortune::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:include/tensortune>)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  foreach(_dep ${ARG_PRIVATE_DEPS})
    if(_dep MATCHES "^(Eigen3::Eigen|nlohmann_json::nlohmann_json|CLI11::CLI11)$")
      target_link_libraries(${name} PRIVATE $<BUILD_INTERFACE:${_dep}>)
    else()
      target_link_libraries(${name} PRIVATE ${_dep})
    endif()
  endforeach()
  if(TT_CUDA)
    target_compile_definitions(${name} PUBLIC TT_CUDA=1)
    set_target_properties(${name} PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
  else()
    target_compile_definitions(${name} PUBLIC TT_CUDA=0)
  endif()
  tt_warnings(${name})
endfunction()
