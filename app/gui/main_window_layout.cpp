// The main window's docks: where a first start puts them (sized for a 1280x720 laptop screen), the Profile
// dock hidden until there is a profile, and the layout saved on close and restored on the next start.
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QShowEvent>
#include <QToolBar>
#include <algorithm>

#include "explorer_panels.h"
#include "gui/main_window.h"
#include "model_summary_view.h"
#include "passes/pass_panel.h"
#include "profile/profile_panel.h"
#include "profile/profile_session.h"

namespace onyx::views {
namespace {

const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
// Bumped when the docks change, so a layout saved by an older Onyx is not applied to different docks.
constexpr int kLayoutVersion = 2;

QDockWidget* makeDock(const QString& title, const QString& name, QWidget* content, QMainWindow* window) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  return dock;
}

QLabel* profilePlaceholder(QWidget* parent) {
  auto* label = new QLabel(QObject::tr("Run the model (Profile > Run..., Ctrl+R) or import a profile to see it here."),
                           parent);
  label->setAlignment(Qt::AlignCenter);
  label->setWordWrap(true);
  return label;
}

}  // namespace

void MainWindow::createDocks() {
  summaryDock_ = makeDock(tr("Summary"), QStringLiteral("summaryDock"), summary_, this);
  passDock_ = makeDock(tr("Passes"), QStringLiteral("passDock"), passPanel_, this);
  profileDock_ = makeDock(tr("Profile"), QStringLiteral("profileDock"), profilePlaceholder(this), this);
  addDockWidget(Qt::LeftDockWidgetArea, summaryDock_);
  addDockWidget(Qt::RightDockWidgetArea, passDock_);
  addDockWidget(Qt::BottomDockWidgetArea, profileDock_);
  profileDock_->hide();
  resetLayout();
}

void MainWindow::resetLayout() {
  QDockWidget* inspector = panels_->inspectorDock();
  QDockWidget* unknownDims = panels_->unknownDimsDock();
  for (QDockWidget* dock : {summaryDock_, unknownDims, inspector, passDock_, profileDock_}) dock->setFloating(false);
  // Left: the summary with the unknown-dim debugger behind it; right: the inspector over the passes; the
  // profile below the canvas, once there is one.
  addDockWidget(Qt::LeftDockWidgetArea, summaryDock_);
  addDockWidget(Qt::LeftDockWidgetArea, unknownDims);
  tabifyDockWidget(summaryDock_, unknownDims);
  addDockWidget(Qt::RightDockWidgetArea, inspector);
  addDockWidget(Qt::RightDockWidgetArea, passDock_);
  splitDockWidget(inspector, passDock_, Qt::Vertical);
  addDockWidget(Qt::BottomDockWidgetArea, profileDock_);
  for (QDockWidget* dock : {summaryDock_, unknownDims, inspector, passDock_}) dock->show();
  const bool profiled = profilePanel_ && profilePanel_->session()->hasProfile();
  profileDock_->setVisible(profiled);
  summaryDock_->raise();

  // Sizes for the window as it is: the canvas keeps about half the width, the inspector most of its column.
  const int width = std::max(this->width(), 800);
  const int height = std::max(this->height(), 480);
  resizeDocks({summaryDock_, inspector}, {std::clamp(width * 24 / 100, 240, 400), std::clamp(width * 30 / 100, 300, 480)},
              Qt::Horizontal);
  resizeDocks({inspector, passDock_}, {height * 55 / 100, height * 45 / 100}, Qt::Vertical);
  if (profiled) resizeDocks({profileDock_}, {height * 40 / 100}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  // Dock sizes only take once the window has its real size: apply the default layout again at the first
  // show unless a saved one was restored.
  if (!layoutApplied_) {
    layoutApplied_ = true;
    resetLayout();
  }
}

void MainWindow::saveLayout() {
  QSettings settings;
  settings.setValue(kGeometryKey, saveGeometry());
  settings.setValue(kStateKey, saveState(kLayoutVersion));
}

void MainWindow::restoreLayout() {
  QSettings settings;
  restoreGeometry(settings.value(kGeometryKey).toByteArray());
  if (restoreState(settings.value(kStateKey).toByteArray(), kLayoutVersion)) layoutApplied_ = true;
  // A saved layout may show the Profile dock; without a profile it would be an empty half of the window.
  profileDock_->hide();
}

void MainWindow::showProfileDockWhenThereIsAProfile() {
  connect(profilePanel_->session(), &ProfileSession::profileChanged, this, [this] {
    if (profileDock_->isHidden()) {
      profileDock_->show();
      resizeDocks({profileDock_}, {height() * 40 / 100}, Qt::Vertical);
    }
    profileDock_->raise();
  });
}

}  // namespace onyx::views
