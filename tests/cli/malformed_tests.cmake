# Issue #25: the malformed-model corpus. Each case of malformed/cases.txt is a model (ONNX text, written at
# build time by onyx_test_model_tool corpus), an onyx command and the one `error:` line it must print with
# exit 1. A case is one line, so another branch adds a check by adding a line.
set(_cases ${CMAKE_CURRENT_SOURCE_DIR}/malformed/cases.txt)
set(_corpus_dir ${CMAKE_CURRENT_BINARY_DIR}/malformed)
add_custom_command(OUTPUT ${_corpus_dir}/corpus.stamp
  COMMAND onyx_test_model_tool corpus ${_cases} ${_corpus_dir}
  DEPENDS onyx_test_model_tool ${_cases} VERBATIM)
add_custom_target(onyx_cli_malformed_corpus ALL DEPENDS ${_corpus_dir}/corpus.stamp)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_cases})

# Only the names are read here: the lines hold ';' and quotes that CMake lists would mangle.
file(READ ${_cases} _manifest)
# (A case starts a line; `^` would also match where the previous match ended.)
string(REGEX MATCHALL "\n[A-Za-z0-9_.-]+ [|] " _case_heads "\n${_manifest}")
foreach(_head ${_case_heads})
  string(REGEX REPLACE "^\n([A-Za-z0-9_.-]+) [|] $" "\\1" _name "${_head}")
  add_test(NAME cli.malformed.${_name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/malformed/check_case.sh ${_cases} ${_name} $<TARGET_FILE:onyx>
      ${ONYX_SAMPLE_MODEL}
    WORKING_DIRECTORY ${_corpus_dir})
  set_tests_properties(cli.malformed.${_name} PROPERTIES LABELS "cli;malformed" TIMEOUT 90)
endforeach()
