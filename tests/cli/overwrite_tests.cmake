# Outputs never overwrite inputs (#25): each way an output path could land on a file the command reads (the
# model, its external data, a trace, a recipe, an input tensor) or two outputs on one file is refused with
# exit 1 before anything is written; every file's sha256 is the same afterwards (overwrite_case.sh).
set(_never "onyx never writes over its inputs")
set(_shared "two outputs cannot share one file")
set(_overwrite_cases
  "optimize.model|${_never}|optimize in.onnx -o in.onnx"
  "optimize.model_via_dots|${_never}|optimize in.onnx -o inputs/../in.onnx"
  "optimize.external_data|${_never}|optimize ext.onnx -o ext.bin"
  "optimize.recipe|${_never}|optimize in.onnx -o recipe.json --pipeline recipe.json"
  "optimize.save_recipe_over_model|${_never}|optimize in.onnx -o out.onnx --save-recipe in.onnx"
  "optimize.input_tensor|${_never}|optimize in.onnx -o inputs/input_0.pb --verify --inputs inputs"
  "optimize.two_outputs|${_shared}|optimize in.onnx -o same.onnx --save-recipe same.onnx"
  "shapes.write_model|${_never}|shapes in.onnx --write in.onnx"
  "shapes.write_external_data|${_never}|shapes ext.onnx --write ext.bin"
  "render.model|${_never}|render in.onnx -o model-link.svg"
  "render.trace|${_never}|render in.onnx -o trace-link.png --profile trace.json"
  "save.external_data_of_input|${_never}|save ext.onnx ext.bin"
  "profile.csv_over_trace|${_never}|profile trace.json --csv trace.json"
  "profile.speedscope_over_model|${_never}|profile trace.json --model in.onnx --speedscope in.onnx"
  "profile.two_outputs|${_shared}|profile trace.json --csv same.txt --speedscope same.txt")
foreach(_case IN LISTS _overwrite_cases)
  string(REPLACE "|" ";" _parts "${_case}")
  list(GET _parts 0 _name)
  list(GET _parts 1 _text)
  list(GET _parts 2 _command)
  separate_arguments(_args UNIX_COMMAND "${_command}")
  add_test(NAME cli.overwrite.${_name}
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/overwrite_case.sh $<TARGET_FILE:onyx> ${ONYX_SAMPLE_MODEL} "${_text}" ${_args})
  set_tests_properties(cli.overwrite.${_name} PROPERTIES LABELS cli TIMEOUT 120 ENVIRONMENT QT_QPA_PLATFORM=offscreen)
endforeach()
