// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command runCommand();
Command conformanceCommand();

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      runCommand(),
      conformanceCommand(),
  };
  return list;
}

}  // namespace onyx::cli
