// One executable: `onyx SUBCOMMAND ...` runs headless; `onyx [MODEL]` opens the GUI (on the bundled sample
// model when none is given, unless edits autosaved by a session that ended without saving are restored).
#include <QApplication>
#include <QIcon>
#include <string>

#include "cli/command.h"
#include "gui/main_window.h"
#include "gui/theme.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    std::string first = argv[1];
    if (onyx::cli::isCommand(first) || first == "--help" || first == "-h" || first == "--version")
      return onyx::cli::run(argc, argv);
  }
  QApplication app(argc, argv);  // takes Qt's own options (-platform, -style...) out of argv
  QApplication::setApplicationName("Onyx");
  QApplication::setOrganizationName("Onyx");
  QApplication::setApplicationVersion(ONYX_VERSION);
  // The .desktop file's name: Wayland compositors match the window to its entry (and icon) by it.
  QApplication::setDesktopFileName("onyx");
  QApplication::setWindowIcon(QIcon::fromTheme("onyx", QIcon(":/onyx/onyx.svg")));
  onyx::views::applyTheme(onyx::views::savedTheme());
  onyx::views::MainWindow window;
  const QStringList arguments = QApplication::arguments();
  window.show();
  // A restored session wins over the model named on the command line (which stays in Open Recent).
  if (!window.offerAutosaveRestore()) {
    const QString model = arguments.size() > 1 ? arguments[1] : onyx::views::MainWindow::bundledSamplePath();
    if (!model.isEmpty()) window.openModel(model);
  }
  return app.exec();
}
