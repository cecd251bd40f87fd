#pragma once
// Crash insurance for unsaved edits: the edited model, written atomically (QSaveFile) to the per-user state
// folder (<AppLocalDataLocation>/autosave/) with a small JSON file naming the original model, the time and
// the process. A window removes its files once the edits are saved or knowingly discarded, so files left
// there at the next start belong to a session that ended without asking: they are offered for restore.
// External weights are not copied: the autosave keeps their locations, and restoring resolves them against
// the original model's folder (whose files saving never modifies).
#include <QDateTime>
#include <QString>
#include <vector>

#include "util/expected.h"

namespace onyx {
class Model;
}

namespace onyx::views {

struct AutosaveEntry {
  QString modelFile;     // the autosaved .onnx
  QString metadataFile;  // its .json
  QString originalPath;  // the model the edits were made to
  QDateTime savedAt;
  qint64 processId = 0;
};

class Autosave {
 public:
  // Files named after this process and a counter, so two windows (or two Onyx processes) never collide.
  Autosave();

  static QString folder();
  // Entries left by sessions that are gone (or by other windows of this process), newest first.
  static std::vector<AutosaveEntry> pendingEntries();
  // Deletes an entry's two files.
  static void discard(const AutosaveEntry& entry);

  // Writes `model` (edited from `originalPath`) over this session's previous autosave.
  Expected<void> write(const Model& model, const QString& originalPath);
  // Removes this session's files (the edits were saved, discarded or undone).
  void clear();
  bool exists() const;
  QString modelFile() const { return base_ + QStringLiteral(".onnx"); }
  QString metadataFile() const { return base_ + QStringLiteral(".json"); }

 private:
  QString base_;
};

}  // namespace onyx::views
