// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command infoCommand();         // cmd_info.cpp
Command saveCommand();         // cmd_save.cpp
Command shapesCommand();       // cmd_shapes.cpp
Command runCommand();          // cmd_run.cpp
Command conformanceCommand();  // cmd_conformance.cpp
Command diffCommand();         // cmd_diff.cpp

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      infoCommand(), saveCommand(), shapesCommand(), runCommand(), conformanceCommand(), diffCommand(),
  };
  return list;
}

}  // namespace onyx::cli
