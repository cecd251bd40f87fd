#include "gui/autosave.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <signal.h>

#include "ir/model.h"
#include "onnx/onnx_io.h"

namespace onyx::views {
namespace {

bool processAlive(qint64 pid) {
  return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
}

Expected<void> writeAtomically(const QString& path, const QByteArray& bytes) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
    return makeError("cannot write the autosave: " + file.errorString().toStdString(), path.toStdString());
  return {};
}

}  // namespace

Autosave::Autosave() {
  static std::atomic<int> counter = 0;
  base_ = folder() + QStringLiteral("/session-%1-%2").arg(QCoreApplication::applicationPid()).arg(++counter);
}

QString Autosave::folder() {
  return QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) + QStringLiteral("/autosave");
}

std::vector<AutosaveEntry> Autosave::pendingEntries() {
  std::vector<AutosaveEntry> entries;
  const QDir dir(folder());
  for (const QFileInfo& json : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files)) {
    QFile file(json.filePath());
    if (!file.open(QIODevice::ReadOnly)) continue;
    const QJsonObject object = QJsonDocument::fromJson(file.readAll()).object();
    AutosaveEntry entry;
    entry.metadataFile = json.filePath();
    entry.modelFile = json.path() + "/" + json.completeBaseName() + QStringLiteral(".onnx");
    entry.originalPath = object.value(QStringLiteral("original")).toString();
    entry.savedAt = QDateTime::fromString(object.value(QStringLiteral("savedAt")).toString(), Qt::ISODate);
    entry.processId = object.value(QStringLiteral("pid")).toInteger();
    if (entry.originalPath.isEmpty() || !QFileInfo::exists(entry.modelFile)) continue;
    // Another Onyx still running owns its files.
    if (entry.processId != QCoreApplication::applicationPid() && processAlive(entry.processId)) continue;
    entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.savedAt > b.savedAt; });
  return entries;
}

void Autosave::discard(const AutosaveEntry& entry) {
  QFile::remove(entry.modelFile);
  QFile::remove(entry.metadataFile);
}

Expected<void> Autosave::write(const Model& model, const QString& originalPath) {
  if (!QDir().mkpath(folder())) return makeError("cannot create the autosave folder", folder().toStdString());
  auto bytes = serializeModel(model);
  if (!bytes) return bytes.error();
  if (auto written = writeAtomically(modelFile(), QByteArray::fromStdString(*bytes)); !written) return written;
  QJsonObject object;
  object.insert(QStringLiteral("original"), QFileInfo(originalPath).absoluteFilePath());
  object.insert(QStringLiteral("savedAt"), QDateTime::currentDateTime().toString(Qt::ISODateWithMs));
  object.insert(QStringLiteral("pid"), QCoreApplication::applicationPid());
  // The metadata last: an entry is only listed once its model is complete.
  return writeAtomically(metadataFile(), QJsonDocument(object).toJson());
}

void Autosave::clear() {
  QFile::remove(metadataFile());
  QFile::remove(modelFile());
}

bool Autosave::exists() const {
  return QFileInfo::exists(metadataFile());
}

}  // namespace onyx::views
