// Every shared real model opens as a laid-out level: all nodes accounted for, no overlapping boxes, the
// same coordinates on a second load, and bodies and groups open as levels of their own.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "ir/scopes.h"
#include "layout/layout_service.h"
#include "onnx/onnx_io.h"
#include "support/test_data.h"

namespace onyx::layout {
namespace {

std::vector<std::filesystem::path> sharedModels(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (std::filesystem::exists(entry.path() / "model.onnx")) files.push_back(entry.path() / "model.onnx");
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Each load is its own document, as the canvas numbers them.
std::shared_ptr<const LevelLayout> layOut(LayoutService& service, const LevelRequest& request,
                                          uint64_t document) {
  auto level = buildLevel(request);
  if (!level) {
    ADD_FAILURE() << level.error().toString();
    return nullptr;
  }
  auto view = std::make_shared<const LevelView>(std::move(level.value()));
  LayoutOutcome outcome = service.layoutNow(LayoutKey::of(request, document, 0), view);
  if (!outcome) {
    ADD_FAILURE() << outcome.error().toString();
    return nullptr;
  }
  return outcome.value();
}

void expectSound(const LevelLayout& layout, const std::string& what) {
  const LevelView& level = *layout.level;
  ASSERT_EQ(layout.items.size(), level.items.size()) << what;
  for (size_t i = 0; i < layout.items.size(); ++i) {
    EXPECT_GT(layout.items[i].width, 0) << what << " " << level.items[i].key;
    for (size_t j = i + 1; j < layout.items.size(); ++j) {
      EXPECT_FALSE(layout.items[i].intersects(layout.items[j]))
          << what << ": " << level.items[i].key << " overlaps " << level.items[j].key;
    }
  }
  for (size_t e = 0; e < level.edges.size(); ++e) EXPECT_GE(layout.edges[e].points.size(), 2u) << what;
}

size_t nodesAccountedFor(const LevelView& level) {
  size_t count = level.nodeItemCount() + level.foldedConstants;
  for (const Item& item : level.items) count += item.kind == ItemKind::Group ? item.nodeCount : 0;
  return count;
}

TEST(LayoutRealModels, EveryModelOpensAsASoundDeterministicLevel) {
  ONYX_REQUIRE_SHARED(models, "models");
  LayoutService service;
  uint64_t documents = 0;
  for (const auto& file : sharedModels(models)) {
    SCOPED_TRACE(file.string());
    auto first = loadModel(file);
    auto second = loadModel(file);
    ASSERT_TRUE(first.ok() && second.ok()) << (first.ok() ? "" : first.error().toString());
    const Graph& graph = first.value()->graph();
    LevelRequest request;
    request.graph = &graph;
    request.model = first.value().get();
    uint64_t document = ++documents;
    auto layout = layOut(service, request, document);
    ASSERT_TRUE(layout);
    expectSound(*layout, file.string());
    EXPECT_EQ(nodesAccountedFor(*layout->level), graph.nodeCount());

    LevelRequest again = request;
    again.graph = &second.value()->graph();
    again.model = second.value().get();
    auto repeat = layOut(service, again, ++documents);
    ASSERT_TRUE(repeat);
    EXPECT_EQ(repeat->items, layout->items);
    EXPECT_EQ(repeat->edges, layout->edges);

    // Each group opens as its own level holding exactly its nodes; each body lays out too.
    ScopeTree scopes = ScopeTree::build(graph);
    for (const Item& item : layout->level->items) {
      if (item.kind == ItemKind::Group) {
        LevelRequest inside = request;
        inside.scopePath = item.scopePath;
        auto group = layOut(service, inside, document);
        ASSERT_TRUE(group);
        expectSound(*group, item.scopePath);
        EXPECT_EQ(nodesAccountedFor(*group->level), scopes.find(item.scopePath)->totalNodes)
            << item.scopePath;
      }
      for (const BodyRef& body : item.bodies) {
        LevelRequest bodyRequest;
        bodyRequest.graph = body.graph;
        bodyRequest.model = request.model;
        auto bodyLayout = layOut(service, bodyRequest, document);
        ASSERT_TRUE(bodyLayout);
        expectSound(*bodyLayout, item.name + " " + body.label);
        EXPECT_EQ(nodesAccountedFor(*bodyLayout->level), body.graph->nodeCount());
      }
    }
  }
}

}  // namespace
}  // namespace onyx::layout
