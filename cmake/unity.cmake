# Unity batches: rc_unity(<target>) compiles the target's .cc files RINGCACHE_UNITY_BATCH
# at a time, each batch one translation unit, so the headers they share (the standard
# library, Abseil, gtest) are parsed once per batch instead of once per file. Measured in
# docs/TESTING.md ("Build time"). CMake's own UNITY_BUILD is not used: its batch files
# include the sources by absolute path, so two clones at different paths would never
# share the compiler cache; these name them from the source root, which is on every
# target's include path.
#
# A batch is one translation unit: names at namespace scope (anonymous namespaces too)
# must differ across the .cc files of a target. -DRINGCACHE_UNITY=OFF compiles each file
# alone (and shows a file that compiles only after its batch neighbours' includes).
option(RINGCACHE_UNITY "Compile each target's sources in batches (unity build)" ON)
set(RINGCACHE_UNITY_BATCH 8 CACHE STRING "Sources per unity batch")

function(rc_unity target)
  if(NOT RINGCACHE_UNITY)
    return()
  endif()
  get_target_property(srcs ${target} SOURCES)
  get_target_property(src_dir ${target} SOURCE_DIR)
  set(batched)
  set(kept)
  foreach(s IN LISTS srcs)
    cmake_path(ABSOLUTE_PATH s BASE_DIRECTORY ${src_dir} OUTPUT_VARIABLE abs)
    # core/malloc/ defines malloc itself: it stays a translation unit of its own.
    if(abs MATCHES "\\.cc$" AND NOT abs MATCHES "/malloc/")
      list(APPEND batched ${abs})
    else()
      list(APPEND kept ${s})
    endif()
  endforeach()
  list(SORT batched)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_unity)
  set(files)
  set(content "")
  set(count 0)
  list(LENGTH batched total)
  set(seen 0)
  foreach(abs IN LISTS batched)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${abs})
    string(APPEND content "#include \"${rel}\"\n")
    math(EXPR count "${count} + 1")
    math(EXPR seen "${seen} + 1")
    if(count EQUAL RINGCACHE_UNITY_BATCH OR seen EQUAL total)
      list(LENGTH files n)
      set(batch ${dir}/batch_${n}.cc)
      # Rewritten only when its list changed, so a reconfigure recompiles nothing.
      set(old "")
      if(EXISTS ${batch})
        file(READ ${batch} old)
      endif()
      if(NOT old STREQUAL content)
        file(WRITE ${batch} "${content}")
      endif()
      list(APPEND files ${batch})
      set(content "")
      set(count 0)
    endif()
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${kept} ${files})
endfunction()
