# gpt2_small with its weights' Transposes constant-folded, as exporters emit it (issue #21).
add_test(NAME cli.run.folded_gpt2
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/folded_gpt2.sh $<TARGET_FILE:onyx> ${ONYX_TEST_DATA}
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.run.folded_gpt2 PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
