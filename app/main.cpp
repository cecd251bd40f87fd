// One executable: `onyx SUBCOMMAND ...` runs headless; `onyx [MODEL]` opens the GUI.
#include <QApplication>
#include <cstring>
#include <string>

#include "cli/command.h"
#include "gui/main_window.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    std::string first = argv[1];
    if (onyx::cli::isCommand(first) || first == "--help" || first == "-h" || first == "--version")
      return onyx::cli::run(argc, argv);
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName("Onyx");
  QApplication::setOrganizationName("Onyx");
  onyx::views::MainWindow window;
  QString model = argc > 1 ? QString::fromLocal8Bit(argv[1]) : onyx::views::MainWindow::bundledSamplePath();
  window.show();
  if (!model.isEmpty()) window.openModel(model);
  return app.exec();
}
