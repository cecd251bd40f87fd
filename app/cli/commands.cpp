// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command shapesCommand();

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      shapesCommand(),
  };
  return list;
}

}  // namespace onyx::cli
