# `onyx profile --onto`: a profile of the optimized squeezenet1_1 painted on the original graph through
# provenance gives every original node a share, and the shares add up to the total (issue #23).
add_test(NAME cli.profile.onto_original
  COMMAND bash -c "set -e; m=\"$2/models/squeezenet1_1/model.onnx\"; [ -f \"$m\" ] || { echo \"test data not found: $m\"; exit 77; }; b=batch=1,height=224,width=224; \"$1\" optimize \"$m\" -o onto_optimized.onnx >/dev/null; \"$1\" run onto_optimized.onnx --random --bind $b --profile onto_trace.json >/dev/null; \"$1\" profile onto_trace.json --model onto_optimized.onnx --onto \"$m\" --bind $b --json > onto.json; /usr/bin/python3 \"$3\" onto.json \"$m\"; \"$1\" profile onto_trace.json --model onto_optimized.onnx --onto \"$m\" --bind $b --top 5 | tee onto.txt; grep -q '^removed (no time): ' onto.txt"
    bash $<TARGET_FILE:onyx> ${ONYX_TEST_DATA} ${CMAKE_CURRENT_SOURCE_DIR}/check_profile_onto.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.profile.onto_original PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
onyx_cli_test(profile.onto_needs_model --stderr-contains "--onto requires --model" 2 --
  $<TARGET_FILE:onyx> profile x.json --onto ${ONYX_SAMPLE_MODEL})
