// The list of subcommands, in the order `onyx --help` shows them.
#include "cli/command.h"

namespace onyx::cli {

Command infoCommand();         // cmd_info.cpp
Command saveCommand();         // cmd_save.cpp
Command shapesCommand();       // cmd_shapes.cpp
Command runCommand();          // cmd_run.cpp
Command conformanceCommand();  // cmd_conformance.cpp
Command optimizeCommand();     // cmd_optimize.cpp
Command diffCommand();         // cmd_diff.cpp
Command profileCommand();      // cmd_profile.cpp
Command renderCommand();       // cmd_render.cpp
Command opsCommand();          // cmd_ops.cpp

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      infoCommand(),     saveCommand(), shapesCommand(),  runCommand(),    conformanceCommand(),
      optimizeCommand(), diffCommand(), profileCommand(), renderCommand(),   opsCommand(),
  };
  return list;
}

}  // namespace onyx::cli
