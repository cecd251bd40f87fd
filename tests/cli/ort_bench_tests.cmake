# bench/ort_bench.sh: its options checked cheaply. The dry run prints the plan (models, thread counts, Onyx's
# environment per ISA, the background load's command) for a fixture folder; bad options fail naming the
# option; a real run of one small model with one iteration, when node and onnxruntime-node are installed.
set(_ort_bench ${PROJECT_SOURCE_DIR}/bench/ort_bench.sh)
set(_bench_models ${CMAKE_CURRENT_BINARY_DIR}/ort_bench_models)
file(MAKE_DIRECTORY ${_bench_models}/tiny/test_data_set_0 ${_bench_models}/other/test_data_set_0
  ${_bench_models}/no_data)
file(WRITE ${_bench_models}/tiny/model.onnx "only its presence is read by a dry run\n")
file(WRITE ${_bench_models}/other/model.onnx "only its presence is read by a dry run\n")
file(WRITE ${_bench_models}/no_data/model.onnx "a model without test_data_set_0\n")
set(_dry env DRY_RUN=1 LOAD_CPU=1 LOAD_SECONDS=60)
onyx_cli_test(ort_bench.dry_run.options --stdout ${_expected}/ort-bench-dry-run.txt 0 --
  ${_dry} THREADS=2,4,8 ISA=native,avx2 LOAD=0,1 ROUNDS=2 sh ${_ort_bench} onyx-binary ort_bench_models tiny)
onyx_cli_test(ort_bench.dry_run.models_only --stdout ${_expected}/ort-bench-dry-run-models-only.txt 0 --
  ${_dry} MODELS_ONLY=other,tiny ISA=avx512 LOAD=1 sh ${_ort_bench} onyx-binary ort_bench_models)
onyx_cli_test(ort_bench.dry_run.every_model --stdout ${_expected}/ort-bench-dry-run-every-model.txt 0 --
  ${_dry} sh ${_ort_bench} onyx-binary ort_bench_models)
onyx_cli_test(ort_bench.bad_threads --stderr-contains "THREADS must be a positive whole number, got '0'" 2 --
  ${_dry} THREADS=2,0 sh ${_ort_bench} onyx-binary ort_bench_models tiny)
onyx_cli_test(ort_bench.bad_isa --stderr-contains "ISA must be native, sse41, avx, avx2 or avx512" 2 --
  ${_dry} ISA=native,avx3 sh ${_ort_bench} onyx-binary ort_bench_models tiny)
onyx_cli_test(ort_bench.bad_load --stderr-contains "LOAD must be 0, 1 or 0,1, got '2'" 2 --
  ${_dry} LOAD=2 sh ${_ort_bench} onyx-binary ort_bench_models tiny)
onyx_cli_test(ort_bench.missing_model --stderr-contains "no model.onnx in ort_bench_models/absent" 2 --
  ${_dry} sh ${_ort_bench} onyx-binary ort_bench_models tiny absent)
onyx_cli_test(ort_bench.missing_data --stderr-contains "no test_data_set_0 in ort_bench_models/no_data" 2 --
  ${_dry} MODELS_ONLY=no_data sh ${_ort_bench} onyx-binary ort_bench_models)
# The real thing: squeezenet1_1 at 1 and 2 threads, native and forced AVX2, quiet and loaded; every cell
# holds a time, and no busy loop outlives the script.
add_test(NAME cli.ort_bench.run_small
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ort_bench_run.sh ${_ort_bench} $<TARGET_FILE:onyx> ${ONYX_TEST_DATA}
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(cli.ort_bench.run_small PROPERTIES LABELS cli SKIP_RETURN_CODE 77 TIMEOUT 600)
