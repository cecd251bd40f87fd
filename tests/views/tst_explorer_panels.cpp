// The explorer's side panels over real ModelDocuments: inspector, unknown-dim debugger, search, ONNX text
// and copy name, alone and inside the main window.
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTextStream>
#include <QToolBar>
#include <QTreeWidget>
#include <QtTest>
#include <memory>

#include "analysis/search.h"
#include "support/explorer_model.h"
#include "explorer_panels.h"
#include "gui/main_window.h"
#include "inspector_view.h"
#include "model_document.h"
#include "onnx/onnx_io.h"
#include "onnx_text_dialog.h"
#include "rich_text_delegate.h"
#include "search_bar.h"
#include "shapes/shape_report.h"
#include "support/test_data.h"
#include "unknown_dims_view.h"

namespace onyx::views {
namespace {

constexpr int kInferenceTimeoutMs = 60000;

const Node* nodeNamed(const Graph& graph, const std::string& name) {
  for (const Node* node : graph.nodes())
    if (node->name() == name) return node;
  return nullptr;
}

const Node* nodeOfType(const Graph& graph, const std::string& opType) {
  for (const Node* node : graph.nodes())
    if (node->opType() == opType) return node;
  return nullptr;
}

Selection select(const Node& node) {
  return Selection{node.graph(), node.id(), nullptr};
}
Selection select(const Value& value) {
  return Selection{value.graph(), kNoNode, &value};
}

std::unique_ptr<ModelDocument> explorerDocument() {
  return std::make_unique<ModelDocument>(std::shared_ptr<Model>(testing::buildExplorerModel()),
                                         "explorer.onnx");
}

std::unique_ptr<ModelDocument> textDocument(const char* text) {
  auto model = parseModelText(text);
  if (!model) return nullptr;
  return std::make_unique<ModelDocument>(std::shared_ptr<Model>(std::move(*model)), "text.onnx");
}

std::unique_ptr<ModelDocument> sharedDocument(const std::string& name) {
  auto path = testing::sharedPath("models/" + name + "/model.onnx");
  if (path.empty()) return nullptr;
  auto model = loadModel(path);
  if (!model) return nullptr;
  return std::make_unique<ModelDocument>(std::shared_ptr<Model>(std::move(*model)),
                                         QString::fromStdString(path.string()));
}

const char* const kIfModel = R"(<ir_version: 8, opset_import: ["" : 17]>
agraph (float[N] x, bool c) => (float[N] y) {
  t = Relu(x)
  y = If(c) <then_branch = g1 () => (float[N] z) { z = Add(t, x) }, else_branch = g2 () => (float[N] w) { w = Neg(t) }>
})";

}  // namespace

class TestExplorerPanels : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() {
    QCoreApplication::setOrganizationName("OnyxTests");
    QCoreApplication::setApplicationName("tst_explorer_panels");
  }

  // --- Inspector ---------------------------------------------------------------------------------------

  void inspectorShowsANodesAttributesAndInferredShapes() {
    auto document = explorerDocument();
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Node* conv = nodeNamed(document->model().graph(), "/img/Conv");
    QVERIFY(conv);
    document->select(select(*conv));

    QCOMPARE(inspector.row("Node", "op")->text(InspectorView::kValueColumn), QString("Conv"));
    QCOMPARE(inspector.row("Node", "domain")->text(InspectorView::kValueColumn), QString("ai.onnx"));
    QCOMPARE(inspector.row("Node", "name")->text(InspectorView::kValueColumn), QString("/img/Conv"));
    QCOMPARE(inspector.row("Node", "graph")->text(InspectorView::kValueColumn), QString("main graph"));
    QCOMPARE(inspector.row("Attributes", "kernel_shape")->text(InspectorView::kValueColumn),
             QString("[3, 3]"));
    QCOMPARE(inspector.row("Attributes", "strides")->text(InspectorView::kValueColumn), QString("[1, 1]"));
    QCOMPARE(inspector.row("Inputs", "img")->text(InspectorView::kValueColumn),
             QString("float32[N, 3, 224, 224]"));
    QCOMPARE(inspector.row("Outputs", "feat")->text(InspectorView::kValueColumn),
             QString("float32[N, 8, 222, 222]"));

    // The weight is an initializer: previewed under its row.
    QTreeWidgetItem* weight = inspector.row("Inputs", "k");
    QVERIFY(weight);
    QMap<QString, QString> preview;
    for (int i = 0; i < weight->childCount(); ++i)
      preview[weight->child(i)->text(0)] = weight->child(i)->text(InspectorView::kValueColumn);
    QCOMPARE(preview["type"], QString("float32[8, 3, 3, 3]"));
    QCOMPARE(preview["elements"], QString("216"));
    QCOMPARE(preview["min"], QString("0.5"));
    QCOMPARE(preview["mean"], QString("0.5"));
    QCOMPARE(preview["values"], QString("[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, ...]"));

    // Clicking an input row goes to the value.
    QSignalSpy focused(document.get(), &ModelDocument::focusRequested);
    inspector.followLink(inspector.row("Inputs", "img"));
    QCOMPARE(focused.count(), 1);
    QCOMPARE(document->selection().value, document->model().graph().findValue("img"));
  }

  // The selected node's op documented from its schema: summary, inputs, outputs, attributes with their
  // defaults, and the catalogue's category and kernels.
  void inspectorDocumentsTheSelectedOp() {
    auto document = explorerDocument();
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Node* conv = nodeOfType(document->model().graph(), "Conv");
    QVERIFY(conv);
    document->select(select(*conv));
    QTreeWidgetItem* op = inspector.section("Op");
    QVERIFY(op);
    QVERIFY2(inspector.row("Op", "summary")->text(InspectorView::kValueColumn).contains("convolution operator"),
             qPrintable(inspector.row("Op", "summary")->text(InspectorView::kValueColumn)));
    QVERIFY(inspector.row("Op", "summary")->toolTip(InspectorView::kValueColumn).contains("a filter"));
    QCOMPARE(inspector.row("Op", "schema")->text(InspectorView::kValueColumn), QString("ai.onnx Conv, since opset 11"));
    QCOMPARE(inspector.row("Op", "category")->text(InspectorView::kValueColumn), QString("Layer"));
    QVERIFY(inspector.row("Op", "kernels")->text(InspectorView::kValueColumn).startsWith("cpu: reference"));
    QTreeWidgetItem* inputs = inspector.row("Op", "inputs");
    QCOMPARE(inputs->childCount(), 3);
    QCOMPARE(inputs->child(0)->text(InspectorView::kNameColumn), QString("X"));
    QVERIFY(inputs->child(0)->text(InspectorView::kValueColumn).startsWith("T: Input data tensor"));
    QVERIFY(inputs->child(0)->toolTip(InspectorView::kValueColumn).contains("tensor(float)"));
    QCOMPARE(inputs->child(2)->text(InspectorView::kNameColumn), QString("B (optional)"));
    QCOMPARE(inspector.row("Op", "outputs")->child(0)->text(InspectorView::kNameColumn), QString("Y"));
    QTreeWidgetItem* attributes = inspector.row("Op", "attributes");
    QString group;
    for (int i = 0; i < attributes->childCount(); ++i)
      if (attributes->child(i)->text(InspectorView::kNameColumn) == "group")
        group = attributes->child(i)->text(InspectorView::kValueColumn);
    QVERIFY2(group.startsWith("int = 1: "), qPrintable(group));
    // Another op, another documentation; a value selection has none.
    const Node* relu = nodeOfType(document->model().graph(), "Relu");
    QVERIFY(relu);
    document->select(select(*relu));
    QCOMPARE(inspector.row("Op", "schema")->text(InspectorView::kValueColumn), QString("ai.onnx Relu, since opset 14"));
    QCOMPARE(inspector.row("Op", "attributes")->childCount(), 0);
    document->select(select(*conv->outputs().front()));
    QVERIFY(!inspector.section("Op"));
  }

  // An op outside ONNX's registry says so, and still shows what the catalogue knows.
  void inspectorSaysWhenAnOpHasNoSchema() {
    auto document = textDocument(R"(<ir_version: 8, opset_import: ["" : 17, "com.acme" : 1]>
g (float[N] x) => (float[N] y) {
  y = com.acme.Swish(x)
})");
    QVERIFY(document);
    InspectorView inspector;
    inspector.setDocument(document.get());
    document->select(select(*nodeOfType(document->model().graph(), "Swish")));
    QCOMPARE(inspector.row("Op", "summary")->text(InspectorView::kValueColumn),
             QString("no ONNX schema for Swish in domain com.acme"));
    QCOMPARE(inspector.row("Op", "category")->text(InspectorView::kValueColumn), QString("not in Onyx's catalogue"));
    QVERIFY(!inspector.row("Op", "inputs"));
  }

  void inspectorShowsAValuesProducerConsumersAndDims() {
    auto document = explorerDocument();
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Graph& graph = document->model().graph();
    document->select(select(*graph.findValue("act")));

    QCOMPARE(inspector.row("Value", "type")->text(InspectorView::kValueColumn),
             QString("float32[N, S, 256]"));
    QTreeWidgetItem* producer = inspector.section("Producer")->child(0);
    QCOMPARE(producer->text(0), QString::fromStdString(nodeNamed(graph, "/enc/Relu")->describe()));
    QTreeWidgetItem* consumer = inspector.section("Consumers")->child(0);
    const Node* reshape = nodeNamed(graph, "/head/Reshape");
    QCOMPARE(consumer->text(0), QString::fromStdString(reshape->describe()));
    QCOMPARE(inspector.row("Dims", "dim 0")->text(InspectorView::kValueColumn),
             QString("N - symbolic, in N"));
    QCOMPARE(inspector.row("Dims", "dim 2")->text(InspectorView::kValueColumn), QString("256 - static"));
    QVERIFY(inspector.row("Dims", "dim 2")->text(InspectorView::kLinkColumn).isEmpty());

    // A click on the consumer (through the view, as a user does) focuses it once the event loop runs.
    QSignalSpy focused(document.get(), &ModelDocument::focusRequested);
    inspector.resize(600, 500);
    inspector.show();
    QVERIFY(QTest::qWaitForWindowExposed(&inspector));
    const QRect rect = inspector.visualItemRect(consumer);
    QVERIFY(rect.isValid());
    QTest::mouseClick(inspector.viewport(), Qt::LeftButton, {}, rect.center());
    QTRY_COMPARE(focused.count(), 1);
    QCOMPARE(focused.at(0).at(0).value<Selection>(), select(*reshape));
    QCOMPARE(document->selection(), select(*reshape));
    QCOMPARE(inspector.row("Node", "name")->text(InspectorView::kValueColumn), QString("/head/Reshape"));
  }

  void aRedDimsWhyFocusesItsOrigin() {
    auto document = explorerDocument();
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Graph& graph = document->model().graph();
    document->select(select(*graph.findValue("nz")));

    QCOMPARE(inspector.row("Value", "type")->text(InspectorView::kValueColumn), QString("int64[4, ?]"));
    QVERIFY(inspector.row("Value", "type")
                ->data(InspectorView::kValueColumn, RichTextDelegate::kHtmlRole)
                .toString()
                .contains("color:#c62828\">?</span>"));
    QTreeWidgetItem* unknown = inspector.row("Dims", "dim 1");
    QVERIFY(unknown);
    QVERIFY2(unknown->text(InspectorView::kValueColumn)
                 .startsWith("? - NonZero '/img/NonZero' (#6): NonZero: output count depends on the data"),
             qPrintable(unknown->text(InspectorView::kValueColumn)));
    QVERIFY(unknown->text(InspectorView::kValueColumn).endsWith("[data-dependent]"));
    QCOMPARE(unknown->foreground(0).color(), QColor("#c62828"));
    QCOMPARE(unknown->text(InspectorView::kLinkColumn), QString("why?"));

    QSignalSpy focused(document.get(), &ModelDocument::focusRequested);
    inspector.followLink(unknown);
    QCOMPARE(focused.count(), 1);
    QCOMPARE(document->selection(), select(*nodeNamed(graph, "/img/NonZero")));
  }

  void inspectorWorksForNodesInBodies() {
    auto document = textDocument(kIfModel);
    QVERIFY(document);
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Node* branch = nodeOfType(document->model().graph(), "If");
    const Graph* thenBody = branch->attribute("then_branch")->getGraph();
    const Node* add = nodeOfType(*thenBody, "Add");
    document->select(select(*add));

    QCOMPARE(inspector.row("Node", "op")->text(InspectorView::kValueColumn), QString("Add"));
    QCOMPARE(inspector.row("Node", "graph")->text(InspectorView::kValueColumn),
             "body 'then_branch' of " + QString::fromStdString(branch->describe()));
    QCOMPARE(inspector.row("Inputs", "t")->text(InspectorView::kValueColumn), QString("float32[N]"));
    QCOMPARE(inspector.row("Outputs", "z")->text(InspectorView::kValueColumn), QString("float32[N]"));
    // The graph row leads to the If holding the body.
    inspector.followLink(inspector.row("Node", "graph"));
    QCOMPARE(document->selection(), select(*branch));
  }

  void inspectorOnASharedModel() {
    auto document = sharedDocument("resnet18");
    if (!document) QSKIP("shared model resnet18 not found (set ONYX_TEST_DATA)");
    InspectorView inspector;
    inspector.setDocument(document.get());
    const Node* conv = nodeOfType(document->model().graph(), "Conv");
    document->select(select(*conv));
    QCOMPARE(inspector.row("Attributes", "kernel_shape")->text(InspectorView::kValueColumn),
             QString("[7, 7]"));
    QCOMPARE(inspector.row("Attributes", "strides")->text(InspectorView::kValueColumn), QString("[2, 2]"));
    const Value* weight = conv->input(1);
    QTreeWidgetItem* weightRow = inspector.row("Inputs", QString::fromStdString(weight->name()));
    QVERIFY(weightRow);
    QCOMPARE(weightRow->text(InspectorView::kValueColumn), QString("float32[64, 3, 7, 7]"));
    QVERIFY(weightRow->childCount() >= 6);  // type, elements, min, max, mean, values
    QCOMPARE(weightRow->child(1)->text(InspectorView::kValueColumn), QString("9408"));
    const Value* output = conv->output(0);
    const QString expected = QString::fromStdString(document->shapes().find(output)->type.toString());
    QVERIFY2(expected.contains("height"), qPrintable(expected));  // an expression of the image size
    QCOMPARE(
        inspector.row("Outputs", QString::fromStdString(output->name()))->text(InspectorView::kValueColumn),
        expected);
  }

  // --- Unknown-dim debugger ----------------------------------------------------------------------------

  void unknownDimsListsTheGroupsOnyxShapesReports() {
    auto document = sharedDocument("ssdlite320_mobilenet_v3_large");
    if (!document) QSKIP("shared model ssdlite320_mobilenet_v3_large not found (set ONYX_TEST_DATA)");
    UnknownDimsView panel;
    panel.setDocument(document.get());

    // What `onyx shapes` prints for this model (the CLI test checks the same file against the CLI).
    QFile expectedFile(ONYX_SOURCE_DIR
                       "/tests/cli/expected/shapes-ssdlite320_mobilenet_v3_large-unresolved.txt");
    QVERIFY(expectedFile.open(QIODevice::ReadOnly | QIODevice::Text));
    QStringList lines = QTextStream(&expectedFile).readAll().split('\n', Qt::SkipEmptyParts);
    QCOMPARE(panel.summaryText(), lines.takeFirst());
    QCOMPARE(lines.takeFirst(), QString("unresolved dims by origin:"));
    QStringList expectedGroups;
    for (int i = 0; i + 1 < lines.size(); i += 2)
      expectedGroups << lines[i].mid(2) + " | " + lines[i + 1].trimmed().section(' ', 0, 0);
    QStringList shownGroups;
    QTreeWidget* tree = panel.groupsTree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
      QTreeWidgetItem* group = tree->topLevelItem(i);
      QString kind = group->text(UnknownDimsView::kKindColumn);
      shownGroups << group->text(UnknownDimsView::kOriginColumn) + (kind.isEmpty() ? "" : " [" + kind + "]") +
                         " | " + group->text(UnknownDimsView::kCountColumn);
      QCOMPARE(group->childCount(), group->text(UnknownDimsView::kCountColumn).toInt());
    }
    QCOMPARE(shownGroups, expectedGroups);
    QVERIFY(shownGroups.size() > 10);

    // A click on a group focuses its origin node.
    QSignalSpy focused(document.get(), &ModelDocument::focusRequested);
    panel.resize(700, 500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTreeWidgetItem* first = tree->topLevelItem(0);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualItemRect(first).center());
    QCOMPARE(focused.count(), 1);
    const Selection origin = focused.at(0).at(0).value<Selection>();
    QCOMPARE(origin.node, NodeId(1433));
    QCOMPARE(origin.graph->findNode(origin.node)->name(), std::string("/m/NonZero"));
    QCOMPARE(document->selection(), origin);
  }

  void unknownDimsGroupsForASmallModel() {
    auto document = explorerDocument();
    UnknownDimsView panel;
    panel.setDocument(document.get());
    QTreeWidget* tree = panel.groupsTree();
    QCOMPARE(tree->topLevelItemCount(), 1);
    QCOMPARE(tree->topLevelItem(0)->text(UnknownDimsView::kOriginColumn),
             QString("NonZero '/img/NonZero' (#6): NonZero: output count depends on the data"));
    QCOMPARE(tree->topLevelItem(0)->text(UnknownDimsView::kKindColumn), QString("data-dependent"));
    QCOMPARE(tree->topLevelItem(0)->child(0)->text(0), QString("nz"));
    panel.followLink(tree->topLevelItem(0)->child(0));
    QCOMPARE(document->selection().value, document->model().graph().findValue("nz"));
  }

  void bindingSymbolsReinfersAndChangesTheCounts() {
    auto document = explorerDocument();
    UnknownDimsView panel;
    InspectorView inspector;
    panel.setDocument(document.get());
    inspector.setDocument(document.get());
    const Value* flat = document->model().graph().findValue("flat");
    document->select(select(*flat));
    QCOMPARE(inspector.row("Value", "type")->text(InspectorView::kValueColumn), QString("float32[N*S, 256]"));
    const QString before = panel.summaryText();
    QCOMPARE(before, QString("values: 8, static: 0, symbolic: 7, unresolved: 1 (data-dependent: 1)"));

    QVERIFY(!panel.applyBindings("N=2, oops"));
    QVERIFY(panel.bindingError().contains("'oops'"));
    QVERIFY(!document->isInferring());

    QSignalSpy changed(document.get(), &ModelDocument::shapesChanged);
    QVERIFY(panel.applyBindings("N=2, S=4"));
    QVERIFY(panel.bindingError().isEmpty());
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(panel.summaryText(),
             QString("values: 8, static: 7, symbolic: 0, unresolved: 1 (data-dependent: 1)"));
    QCOMPARE(document->bindings(), (SymBindings{{"N", 2}, {"S", 4}}));
    // The inspector repainted with the new shapes.
    QCOMPARE(inspector.row("Value", "type")->text(InspectorView::kValueColumn), QString("float32[8, 256]"));

    QVERIFY(panel.applyBindings("N=2"));
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(panel.summaryText(),
             QString("values: 8, static: 3, symbolic: 4, unresolved: 1 (data-dependent: 1)"));
  }

  // A KV-cache decoder step (#22): the present edges read past_seq + seq, and the panel binds the past
  // length and the new length separately.
  void kvCacheSymbolsBindSeparatelyInThePanel() {
    auto document = textDocument(R"(
<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
decoder (float[1, seq, 8] x, float[1, 2, past_seq, 4] past_key, float[1, 2, past_seq, 4] past_value)
    => (float out, float present_key, float present_value) {
  out, present_key, present_value = com.microsoft.MultiHeadAttention <num_heads = 2, unidirectional = 1>
      (x, x, x, , , , past_key, past_value)
})");
    QVERIFY(document);
    UnknownDimsView panel;
    InspectorView inspector;
    panel.setDocument(document.get());
    inspector.setDocument(document.get());
    QSignalSpy changed(document.get(), &ModelDocument::shapesChanged);
    if (document->isInferring()) QVERIFY(changed.wait(kInferenceTimeoutMs));
    document->select(select(*document->model().graph().findValue("present_key")));
    auto presentType = [&] { return inspector.row("Value", "type")->text(InspectorView::kValueColumn); };
    QCOMPARE(presentType(), QString("float32[1, 2, past_seq + seq, 4]"));

    QVERIFY(panel.applyBindings("past_seq=0"));
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(presentType(), QString("float32[1, 2, seq, 4]"));
    QVERIFY(panel.applyBindings("past_seq=300, seq=1"));
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(presentType(), QString("float32[1, 2, 301, 4]"));
    QCOMPARE(document->bindings(), (SymBindings{{"past_seq", 300}, {"seq", 1}}));
  }

  void loadingInputTensorsInfersWithTheirValues() {
    auto path = testing::sharedPath("onnx-backend-data/node/test_reshape_negative_dim/model.onnx");
    if (path.empty()) QSKIP("backend case test_reshape_negative_dim not found (set ONYX_TEST_DATA)");
    auto model = loadModel(path);
    QVERIFY(model);
    ModelDocument document(std::shared_ptr<Model>(std::move(*model)), QString::fromStdString(path.string()));
    UnknownDimsView panel;
    panel.setDocument(&document);
    QCOMPARE(panel.summaryText(), QString("values: 3, static: 2, symbolic: 0, unresolved: 1 (data-dependent: 0)"));
    QVERIFY(panel.inputsText().isEmpty());

    // A folder without input_0.pb: the error names it, nothing is re-inferred.
    QVERIFY(!panel.loadInputTensors(QString::fromStdString(path.parent_path().string())));
    QVERIFY(panel.bindingError().contains("no input_0.pb"));
    QVERIFY(!document.isInferring());

    QSignalSpy changed(&document, &ModelDocument::shapesChanged);
    const QString folder = QString::fromStdString((path.parent_path() / "test_data_set_0").string());
    QVERIFY(panel.loadInputTensors(folder));
    QVERIFY(panel.bindingError().isEmpty());
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(panel.summaryText(), QString("values: 3, static: 3, symbolic: 0, unresolved: 0 (data-dependent: 0)"));
    QCOMPARE(panel.inputsText(), QString("input tensors: %1 (2)").arg(folder));
    QCOMPARE(panel.groupsTree()->topLevelItemCount(), 0);

    panel.clearInputTensors();
    QVERIFY(changed.wait(kInferenceTimeoutMs));
    QCOMPARE(panel.summaryText(), QString("values: 3, static: 2, symbolic: 0, unresolved: 1 (data-dependent: 0)"));
    QVERIFY(panel.inputsText().isEmpty());
  }

  // --- Search --------------------------------------------------------------------------------------------

  void searchFindsByOpNameAndShapeAndCycles() {
    auto document = explorerDocument();
    SearchBar bar;
    bar.setDocument(document.get());
    const Graph& graph = document->model().graph();
    QSignalSpy focused(document.get(), &ModelDocument::focusRequested);

    bar.search("op:Conv");
    QCOMPARE(bar.matches().size(), size_t(1));
    QCOMPARE(bar.countText(), QString("1 of 1"));
    QCOMPARE(document->selection(), select(*nodeNamed(graph, "/img/Conv")));
    QCOMPARE(focused.count(), 1);
    QVERIFY(document->highlight().nodes.count(nodeNamed(graph, "/img/Conv")->id()));

    bar.search("relu");
    QCOMPARE(bar.countText(), QString("1 of 1"));
    QCOMPARE(document->selection(), select(*nodeNamed(graph, "/enc/Relu")));

    bar.queryField()->setText("shape:256");  // typing searches too
    QCOMPARE(bar.countText(), QString("1 of 5"));
    QCOMPARE(document->highlight().values.size(), size_t(5));
    QCOMPARE(document->selection(), select(*graph.findValue("x")));
    bar.next();
    QCOMPARE(bar.countText(), QString("2 of 5"));
    QCOMPARE(document->selection(), select(*graph.findValue("w")));
    bar.previous();
    bar.previous();  // wraps to the last
    QCOMPARE(bar.countText(), QString("5 of 5"));
    QCOMPARE(document->selection(), select(*graph.findValue("flat")));
    bar.next();  // and back to the first
    QCOMPARE(bar.countText(), QString("1 of 5"));

    bar.search("N*S");
    QCOMPARE(bar.countText(), QString("1 of 1"));
    QCOMPARE(document->selection(), select(*graph.findValue("flat")));

    bar.search("no such thing");
    QCOMPARE(bar.countText(), QString("no matches"));
    QVERIFY(document->highlight().empty());

    bar.search("conv");
    QCOMPARE(bar.matches().size(), size_t(2));
    bar.dismiss();
    QVERIFY(document->highlight().empty());
    QVERIFY(bar.countText().isEmpty() || bar.matches().empty());
  }

  void searchMatchesTheEngineOnASharedModel() {
    auto document = sharedDocument("bert_small");
    if (!document) QSKIP("shared model bert_small not found (set ONYX_TEST_DATA)");
    SearchBar bar;
    bar.setDocument(document.get());
    bar.search("op:MatMul");
    const auto expected = searchModel(document->model(), document->shapes(), "op:MatMul");
    QVERIFY(expected.size() > 4);
    QCOMPARE(bar.matches().size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(bar.matches()[i].node, expected[i].node);
      QCOMPARE(bar.matches()[i].node->opType(), std::string("MatMul"));
    }
    QCOMPARE(bar.countText(), QString("1 of %1").arg(expected.size()));
  }

  // --- Panels in a window: actions, ONNX text, copy name -------------------------------------------------

  void panelActionsSearchCopyAndShowText() {
    auto document = textDocument(kIfModel);
    QVERIFY(document);
    QMainWindow window;
    auto* panels = new ExplorerPanels(&window);
    QMenu edit, view;
    panels->addActions(&edit, &view);
    QVERIFY(!panels->findAction()->isEnabled());
    panels->setDocument(document.get());
    QVERIFY(panels->findAction()->isEnabled());
    QVERIFY(!panels->copyNameAction()->isEnabled());  // nothing selected yet
    QCOMPARE(panels->copyNameAction()->shortcut(), QKeySequence(QKeySequence::Copy));
    QCOMPARE(panels->findNextAction()->shortcut(), QKeySequence(Qt::Key_F3));
    QCOMPARE(panels->findPreviousAction()->shortcut(), QKeySequence(Qt::SHIFT | Qt::Key_F3));
    window.show();

    panels->findAction()->trigger();
    QVERIFY(panels->searchToolBar()->isVisible());
    panels->searchBar()->search("op:Neg");  // the else branch's Neg
    panels->findNextAction()->trigger();    // one match: stays on it
    QCOMPARE(panels->searchBar()->countText(), QString("1 of 1"));
    const Node* neg = nodeOfType(*document->selection().graph, "Neg");
    QVERIFY(neg);
    QVERIFY(document->selection().graph->owner() != nullptr);

    panels->copyNameAction()->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(neg->describe()));  // unnamed node

    panels->viewGraphTextAction()->trigger();
    QVERIFY(panels->textDialog());
    QCOMPARE(panels->textDialog()->textView()->toPlainText(),
             QString("g2 () => (float[N] w) {\nw = Neg(t)\n}\n"));
    QVERIFY(panels->textDialog()->textView()->isReadOnly());

    panels->viewModelTextAction()->trigger();
    QCOMPARE(panels->textDialog()->textView()->toPlainText(),
             QString::fromStdString(printModelText(document->model())));

    document->select(select(*document->model().graph().findValue("t")));
    panels->copyNameAction()->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QString("t"));

    QTest::keyClick(panels->searchBar()->queryField(), Qt::Key_Escape);
    QVERIFY(!panels->searchToolBar()->isVisible());
    panels->setDocument(nullptr);
  }

  void mainWindowCreatesADocumentForTheLoadedModel() {
    MainWindow window;
    window.show();
    QSignalSpy loaded(&window, &MainWindow::modelLoaded);
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(loaded.wait(20000));
    QVERIFY(window.document());
    QCOMPARE(&window.document()->model(), window.model());
    QCOMPARE(window.panels()->inspector()->document(), window.document());
    QCOMPARE(window.panels()->unknownDims()->summaryText(),
             QString("values: 13, static: 0, symbolic: 13, unresolved: 0 (data-dependent: 0)"));
    const Node* softmax = nodeOfType(window.document()->model().graph(), "Softmax");
    window.document()->select(select(*softmax));
    QCOMPARE(window.panels()->inspector()->row("Node", "op")->text(InspectorView::kValueColumn),
             QString("Softmax"));
    QStringList menus;
    for (QAction* action : window.menuBar()->actions()) menus << action->text();
    QVERIFY2(menus.contains("&View"), qPrintable(menus.join(",")));

    // Opening another model replaces the document; the panels follow.
    QPointer<ModelDocument> first = window.document();
    window.openModel(MainWindow::bundledSamplePath());
    QVERIFY(loaded.wait(20000));
    QVERIFY(first.isNull());
    QCOMPARE(window.panels()->document(), window.document());
    QVERIFY(window.panels()->inspector()->topLevelItemCount() == 0);  // the new document has no selection
  }
};

}  // namespace onyx::views

QTEST_MAIN(onyx::views::TestExplorerPanels)
#include "tst_explorer_panels.moc"
