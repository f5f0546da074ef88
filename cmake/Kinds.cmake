# The workload kinds' registration (COLLBENCH_KINDS, CMakeLists.txt; docs/layout.md "Adding a
# workload kind"): src/workloads/CMakeLists.txt adds each listed folder, whose CMakeLists.txt builds
# the kind and calls collbench_kind_rows; collbench_generate_row_kinds then writes the table of
# every kind's rows that the report reader and the summarizer search.

# collbench_kind_rows(ROW_KINDS <spec function>... SOURCES <file>...): the kind's row kinds and
# reader views (its report/ folder, on the report layer) are compiled into the report library, so
# every reader of reports (the summarizer too) reads the kind's rows; each ROW_KINDS name is a
# function `const report::RowKindSpec& <name>()` defined in SOURCES.
function(collbench_kind_rows)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "ROW_KINDS;SOURCES")
  if(NOT arg_ROW_KINDS OR NOT arg_SOURCES OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "collbench_kind_rows(ROW_KINDS <function>... SOURCES <file>...) in ${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  list(TRANSFORM arg_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/)
  target_sources(collbench_report PRIVATE ${arg_SOURCES})
  set_property(GLOBAL APPEND PROPERTY COLLBENCH_ROW_KINDS ${arg_ROW_KINDS})
endfunction()

# After every kind's folder: report::registered_row_kinds(), the registered row kinds in
# COLLBENCH_KINDS order, generated into the report library. Called from the top-level CMakeLists.txt.
function(collbench_generate_row_kinds)
  get_property(row_kinds GLOBAL PROPERTY COLLBENCH_ROW_KINDS)
  list(TRANSFORM row_kinds REPLACE "(.+)" "const RowKindSpec& \\1()" OUTPUT_VARIABLE declarations)
  list(JOIN declarations ";\n" COLLBENCH_ROW_KIND_DECLARATIONS)
  list(TRANSFORM row_kinds REPLACE "(.+)" "&\\1()" OUTPUT_VARIABLE entries)
  list(JOIN entries ", " COLLBENCH_ROW_KIND_ENTRIES)
  set(generated ${CMAKE_BINARY_DIR}/generated/row_kinds.cpp)
  configure_file(${PROJECT_SOURCE_DIR}/src/report/row_kinds.cpp.in ${generated} @ONLY)
  target_sources(collbench_report PRIVATE ${generated})
  # Alone, not in a unity batch: another kind's line compiles only this file again.
  set_source_files_properties(${generated} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()
