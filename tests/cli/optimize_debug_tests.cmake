# `onyx optimize` as a pass debugger: recipes (--save-recipe, --pipeline FILE.json), --measure and --bisect.
# A recipe saved from a run replays to the same bytes.
add_test(NAME cli.optimize.recipe_round_trip
  COMMAND bash -c "set -e; \"$1\" optimize optimize_sample.onnx -o direct.onnx --fixpoint --save-recipe steps.json >/dev/null; grep -q '\"onyx_recipe\": 1' steps.json; \"$1\" optimize optimize_sample.onnx -o replayed.onnx --pipeline steps.json >/dev/null; cmp direct.onnx replayed.onnx"
    bash $<TARGET_FILE:onyx>
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.optimize.recipe_round_trip PROPERTIES LABELS cli)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/bad-recipe.json "{\"steps\": [{\"pass\": \"dead-code-elimination\"}, {\"pass\": \"no-such-pass\"}]}\n")
onyx_cli_test(optimize.bad_recipe --stderr-contains "bad-recipe.json: step 2" 1 --
  $<TARGET_FILE:onyx> optimize optimize_sample.onnx -o x.onnx --pipeline bad-recipe.json)
onyx_cli_test(optimize.bisect.nothing_broken --stdout ${_expected}/optimize-bisect-sample.txt 0 --
  $<TARGET_FILE:onyx> optimize optimize_verify.onnx --bisect --passes identity-elimination,dead-code-elimination)
# --measure --json on a real model: every step has a sane cost, the node count falls, errors stay in bounds.
add_test(NAME cli.optimize.measure_json
  COMMAND bash -c "set -e; m=\"$2/models/squeezenet1_1/model.onnx\"; [ -f \"$m\" ] || { echo \"test data not found: $m\"; exit 77; }; \"$1\" optimize \"$m\" -o measured.onnx --measure --json --runs 2 > measure.json; /usr/bin/python3 \"$3\" measure.json"
    bash $<TARGET_FILE:onyx> ${ONYX_TEST_DATA} ${CMAKE_CURRENT_SOURCE_DIR}/check_measure_json.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.optimize.measure_json PROPERTIES LABELS cli SKIP_RETURN_CODE 77)
# --rewrites K: a pass that counts its rewrites (the pattern driver's debug counter, the dock's Step Into)
# stops after its first K and lists them; one that does not count them says so. A recipe has its own limits.
onyx_cli_test(optimize.rewrites --stdout ${_expected}/optimize-rewrites-sample.txt 0 --
  $<TARGET_FILE:onyx> optimize optimize_sample.onnx -o rewrites.onnx --passes identity-elimination,shape-folding
  --rewrites 1)
onyx_cli_test(optimize.rewrites_with_recipe --stderr-contains "--rewrites limits --passes" 2 --
  $<TARGET_FILE:onyx> optimize optimize_sample.onnx -o x.onnx --pipeline steps.json --rewrites 1)
