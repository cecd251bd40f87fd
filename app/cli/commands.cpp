// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
  };
  return list;
}

}  // namespace onyx::cli
