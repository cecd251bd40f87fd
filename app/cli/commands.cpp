// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command infoCommand();  // cmd_info.cpp

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      infoCommand(),
  };
  return list;
}

}  // namespace onyx::cli
