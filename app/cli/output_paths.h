#pragma once
// Outputs never overwrite inputs: every command checks, before it writes anything, that no output path is a
// file it reads (the model, its external data, input tensors, a recipe or trace) and that no two outputs are
// one file. The user's files change only when they save somewhere else and rename.
#include <string>
#include <vector>

#include "util/expected.h"

namespace onyx {
class Model;
}

namespace onyx::cli {

struct PathRole {
  std::string role;  // how the command line named it: "-o", "--save-recipe", "the model"
  std::string path;
};

// An error naming the output, the input it would write over and what to do; nothing is written before.
Expected<void> checkOutputsSpareInputs(const std::vector<PathRole>& outputs, const std::vector<PathRole>& inputs);

// The external data files a loaded model reads, as inputs for the check above.
std::vector<PathRole> externalDataInputs(const Model& model);

// A folder's files (input_K.pb of a test_data_set), as inputs for the check above; none if it is no folder.
std::vector<PathRole> folderInputs(const std::string& role, const std::string& folder);

}  // namespace onyx::cli
