#pragma once
// The pass panel: the catalogue of passes with their summaries, Apply (one pass, to the whole model or to the
// selected node's scope), Run pipeline (the default one), an optional numeric check of every step, and the
// history of steps with their counters, skip reasons, node counts, time and check results. Undone steps are
// greyed. Selecting one step compares the model before and after it; selecting two compares their states.
// Measure adds what each step costs to run (latency, peak memory, worst error against the original) as
// columns; Bisect names the step and the rewrite that first break the outputs; the steps in effect save as
// a recipe, and a recipe loads and replays. With Measure, a chart under the history plots latency, peak
// memory and node count over the steps (clicking a point selects the step). Step Into applies the selected
// pass one rewrite at a time: each click shows the next rewrite's match, or applies it as its own step.
#include <QMetaType>
#include <QString>
#include <QWidget>
#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;
class QUndoStack;

namespace onyx {
class Model;
}

namespace onyx::views {

class ModelDocument;
class PassSession;
class StepChart;

class PassPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PassPanel(QUndoStack& undoStack, QWidget* parent = nullptr);
  ~PassPanel() override;

  // A new document starts a new session (and a new undo history: the caller clears the stack).
  void setDocument(ModelDocument* document);
  PassSession* session() const { return session_; }

  QTreeWidget* catalogue() const { return catalogue_; }
  QTreeWidget* history() const { return history_; }
  QComboBox* scopeChoice() const { return scope_; }
  QCheckBox* verifyOption() const { return verify_; }
  QCheckBox* measureOption() const { return measure_; }
  QPushButton* bisectButton() const { return bisect_; }
  QPushButton* saveRecipeButton() const { return saveRecipe_; }
  QPushButton* loadRecipeButton() const { return loadRecipe_; }
  // The check's inputs: random, or a test_data_set_N folder beside the model.
  QComboBox* verifyInputs() const { return verifyInputs_; }
  QPushButton* applyButton() const { return apply_; }
  QPushButton* stepIntoButton() const { return stepInto_; }
  StepChart* stepChart() const { return chart_; }
  QPushButton* pipelineButton() const { return pipeline_; }
  QPushButton* compareButton() const { return compare_; }
  QLabel* statusLabel() const { return status_; }

  // The scope Apply uses: "" (whole model) or the selected node's scope.
  QString chosenScope() const;

 public Q_SLOTS:
  // Applies the catalogue's current pass.
  void applySelectedPass();
  // Step Into the catalogue's current pass (PassSession::stepInto); returns the status text.
  QString stepIntoSelectedPass();
  void runDefaultPipeline();
  void compareSelectedSteps();
  // Bisects the steps in effect and shows the answer in the status line; returns that text.
  QString bisectSteps();
  // Writes the steps in effect as a recipe; an error message, or empty on success.
  QString saveRecipe(const QString& path);
  // Reads a recipe and runs its steps; an error message, or empty when it started.
  QString loadRecipe(const QString& path);

 Q_SIGNALS:
  // Show the diff between two states of the model.
  void compareRequested(std::shared_ptr<const onyx::Model> before, std::shared_ptr<const onyx::Model> after,
                        const QString& beforeTitle, const QString& afterTitle);
  // Step Into's focus changed (session()->rewriteFocus()): the canvas shows it.
  void rewriteFocusChanged();

 private:
  void start(const QStringList& passes);
  void rebuildHistory();
  void refreshHistoryState();
  void updateScopeChoice();
  void updateVerifyInputs();
  void updateButtons();
  // -1 for the "original model" row, else the step index; -2 when nothing usable is selected.
  int stepOfItem(const QTreeWidgetItem* item) const;
  QString stateTitle(int step) const;
  void selectStep(int step);

  QUndoStack& undoStack_;
  ModelDocument* document_ = nullptr;
  PassSession* session_ = nullptr;
  QTreeWidget* catalogue_ = nullptr;
  QComboBox* scope_ = nullptr;
  QCheckBox* verify_ = nullptr;
  QCheckBox* measure_ = nullptr;
  QPushButton* bisect_ = nullptr;
  QPushButton* saveRecipe_ = nullptr;
  QPushButton* loadRecipe_ = nullptr;
  QComboBox* verifyInputs_ = nullptr;
  QPushButton* apply_ = nullptr;
  QPushButton* stepInto_ = nullptr;
  StepChart* chart_ = nullptr;
  QPushButton* pipeline_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* compare_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QTreeWidget* history_ = nullptr;
};

}  // namespace onyx::views

Q_DECLARE_METATYPE(std::shared_ptr<const onyx::Model>)
