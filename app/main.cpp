// One executable: `onyx SUBCOMMAND ...` runs headless; `onyx [MODEL]` opens the GUI (on the bundled sample
// model when none is given).
#include <QApplication>
#include <string>

#include "cli/command.h"
#include "gui/main_window.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    std::string first = argv[1];
    if (onyx::cli::isCommand(first) || first == "--help" || first == "-h" || first == "--version")
      return onyx::cli::run(argc, argv);
  }
  QApplication app(argc, argv);  // takes Qt's own options (-platform, -style...) out of argv
  QApplication::setApplicationName("Onyx");
  QApplication::setOrganizationName("Onyx");
  QApplication::setApplicationVersion("0.1.0");
  onyx::views::MainWindow window;
  const QStringList arguments = QApplication::arguments();
  QString model = arguments.size() > 1 ? arguments[1] : onyx::views::MainWindow::bundledSamplePath();
  window.show();
  if (!model.isEmpty()) window.openModel(model);
  return app.exec();
}
