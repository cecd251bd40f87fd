// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command infoCommand();    // cmd_info.cpp
Command shapesCommand();  // cmd_shapes.cpp
Command saveCommand();    // cmd_save.cpp

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      infoCommand(),
      saveCommand(),
      shapesCommand(),
  };
  return list;
}

}  // namespace onyx::cli
