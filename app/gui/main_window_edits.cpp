// Never losing an edit: the Save / Discard / Cancel prompt before anything replaces or closes a modified
// model (quit, open, close), File > Save, the autosave after edits, and restoring an autosave left by a
// session that ended without saving.
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStackedWidget>
#include <QTimer>
#include <QUndoStack>

#include "explorer_panels.h"
#include "graph/graph_canvas.h"
#include "gui/main_window.h"
#include "model_document.h"
#include "model_summary_view.h"
#include "passes/pass_panel.h"
#include "profile/profile_panel.h"

namespace onyx::views {

bool MainWindow::isModified() const {
  return document_ && (restoredEdits_ || !undoStack_->isClean());
}

bool MainWindow::maybeSaveEdits() {
  if (!isModified()) return true;
  QMessageBox box(QMessageBox::Warning, tr("Onyx"),
                  tr("%1 has edits that are not saved.").arg(QFileInfo(modelPath_).fileName()),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("unsavedEditsPrompt"));
  box.setInformativeText(tr("Save them to %1 first? Discard drops them.").arg(modelPath_));
  box.setDefaultButton(QMessageBox::Save);
  switch (box.exec()) {
    case QMessageBox::Save: return save();
    case QMessageBox::Discard: autosave_.clear(); return true;
    default: return false;
  }
}

bool MainWindow::save() {
  if (!document_) return false;
  return saveModelAs(modelPath_);
}

bool MainWindow::closeDocument() {
  if (!document_) return true;
  if (!maybeSaveEdits()) return false;
  ++generation_;  // a load still running would install over the closed state
  setBusy(false, tr("No model"));
  canvas_->setDocument(nullptr);
  panels_->setDocument(nullptr);
  passPanel_->setDocument(nullptr);
  undoStack_->clear();  // before the model its commands edit goes
  QWidget* oldProfile = profileDock_->widget();
  profilePanel_ = nullptr;
  auto* placeholder = new QLabel(tr("Open a model to run and profile it."), profileDock_);
  placeholder->setAlignment(Qt::AlignCenter);
  profileDock_->setWidget(placeholder);
  delete oldProfile;
  profileDock_->hide();
  summary_->clearInfo();
  pages_->setCurrentWidget(placeholder_);
  delete document_;
  document_ = nullptr;
  model_.reset();
  modelPath_.clear();
  restoredEdits_ = false;
  autosave_.clear();
  updateTitle();
  return true;
}

void MainWindow::onEdited() {
  updateTitle();
  if (isModified()) {
    autosaveTimer_->start();
  } else {  // undone back to the saved state
    autosaveTimer_->stop();
    autosave_.clear();
  }
}

void MainWindow::refreshSummary() {
  if (document_) summary_->setInfo(summarizeModel(document_->model()));
}

bool MainWindow::writeAutosave() {
  autosaveTimer_->stop();
  if (!isModified()) return false;
  auto written = autosave_.write(document_->model(), modelPath_);
  if (!written) {
    statusText_->setText(tr("Autosave failed: %1").arg(QString::fromStdString(written.error().toString())));
    return false;
  }
  // The restored entry's edits are now in this window's own autosave.
  if (!restoredFrom_.metadataFile.isEmpty()) {
    Autosave::discard(restoredFrom_);
    restoredFrom_ = {};
  }
  Q_EMIT autosaved(autosave_.modelFile());
  return true;
}

bool MainWindow::offerAutosaveRestore() {
  std::vector<AutosaveEntry> entries = Autosave::pendingEntries();
  std::erase_if(entries, [this](const AutosaveEntry& e) { return e.metadataFile == autosave_.metadataFile(); });
  if (entries.empty()) return false;
  const AutosaveEntry& entry = entries.front();
  QMessageBox box(QMessageBox::Question, tr("Onyx"),
                  tr("Onyx ended without saving the edits to %1.").arg(QFileInfo(entry.originalPath).fileName()),
                  QMessageBox::NoButton, this);
  box.setObjectName(QStringLiteral("restoreAutosavePrompt"));
  box.setInformativeText(tr("They were autosaved %1. Restore them? Discard deletes the autosave.")
                             .arg(QLocale().toString(entry.savedAt, QLocale::ShortFormat)));
  QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
  box.addButton(QMessageBox::Discard);
  box.addButton(tr("Not Now"), QMessageBox::RejectRole);
  box.setDefaultButton(restore);
  box.exec();
  if (box.clickedButton() == restore) {
    restoreAutosave(entry);
    return true;
  }
  if (box.buttonRole(box.clickedButton()) == QMessageBox::DestructiveRole) Autosave::discard(entry);
  return false;
}

void MainWindow::restoreAutosave(const AutosaveEntry& entry) {
  if (!maybeSaveEdits()) return;
  restoredFrom_ = entry;
  startLoading(entry.originalPath, entry.modelFile);
}

}  // namespace onyx::views
