#pragma once
// What the Run dialog proposes before the user changes anything, so that the first Run works: the
// test_data_set_N folders beside the model, values for the inputs' symbolic dims (read from a data set's
// tensors, else typical sizes by the dim's name and place), and lines saying in words what will be fed.
// Random inputs with every symbol bound to 1 made squeezenet fail ("the window is larger than the padded
// input") while its test_data_set_0 sat beside it unoffered.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ir/model.h"
#include "profile/profile_run.h"

namespace onyx::views {

// The test_data_set_* folders in the model file's folder, in the order of their number.
std::vector<std::filesystem::path> findTestDataSets(const std::filesystem::path& modelPath);

// A typical size for the symbol `symbol` at dim `index` of a `rank`-dim input: 1 for a batch, 224 for an
// image's height or width, 128 for a sequence length; by the name first ("batch", "height", "seq_len"),
// then by the place ([N, C, H, W], [batch, sequence]); 1 when neither says.
int64_t typicalDimValue(std::string_view symbol, size_t index, size_t rank);

// A value for every symbol of the model's input shapes: the dims of the data set's input_K.pb where
// `dataSet` is given and the file's rank matches the declared one, else typicalDimValue.
SymBindings proposeBindings(const Model& model, const std::filesystem::path& dataSet = {});

// One line per graph input saying what the request feeds it: "input: float32[1, 3, 224, 224], random
// values" or "input: float32[1, 3, 224, 224] from test_data_set_0/input_0.pb".
std::vector<std::string> describeFeed(const Model& model, const profile::RunRequest& request);

}  // namespace onyx::views
