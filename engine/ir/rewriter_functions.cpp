// The Rewriter's edits of model-local functions and opset imports (rewriter.h).
#include <algorithm>
#include <stdexcept>

#include "ir/rewriter.h"

namespace onyx {

// ---- Model-local functions and opset imports -----------------------------------------------------

namespace {
std::string functionLabel(const Function& function) { return function.domain + "." + function.name; }
}  // namespace

void Rewriter::addFunction(std::shared_ptr<Function> function) {
  Model* model = model_;
  record({[=](bool) {
            model->functions.push_back(function);
            model->emit({ChangeEvent::Kind::FunctionAdded, nullptr, kNoNode, functionLabel(*function), false});
          },
          [=] {
            std::erase(model->functions, function);
            model->emit({ChangeEvent::Kind::FunctionRemoved, nullptr, kNoNode, functionLabel(*function), true});
          }});
}

void Rewriter::removeFunction(const Function* function) {
  Model* model = model_;
  auto found = std::find_if(model->functions.begin(), model->functions.end(),
                            [&](const auto& f) { return f.get() == function; });
  if (found == model->functions.end()) throw std::logic_error("removeFunction: not a function of this model");
  std::shared_ptr<Function> held = *found;
  size_t position = size_t(found - model->functions.begin());
  record({[=](bool) {
            std::erase(model->functions, held);
            model->emit({ChangeEvent::Kind::FunctionRemoved, nullptr, kNoNode, functionLabel(*held), false});
          },
          [=] {
            model->functions.insert(model->functions.begin() + std::ptrdiff_t(position), held);
            model->emit({ChangeEvent::Kind::FunctionAdded, nullptr, kNoNode, functionLabel(*held), true});
          }});
}

void Rewriter::setOpsetImport(std::string domain, int64_t version) {
  Model* model = model_;
  auto old = std::make_shared<std::vector<OpsetImport>>(model->opsetImports);
  auto fresh = std::make_shared<std::vector<OpsetImport>>(model->opsetImports);
  auto found = std::find_if(fresh->begin(), fresh->end(), [&](const OpsetImport& o) { return o.domain == domain; });
  if (version == 0) {
    if (found != fresh->end()) fresh->erase(found);
  } else if (found != fresh->end()) {
    found->version = version;
  } else {
    fresh->push_back({domain, version});
  }
  record({[=](bool) {
            model->opsetImports = *fresh;
            model->emit({ChangeEvent::Kind::OpsetImportsChanged, nullptr, kNoNode, domain, false});
          },
          [=] {
            model->opsetImports = *old;
            model->emit({ChangeEvent::Kind::OpsetImportsChanged, nullptr, kNoNode, domain, true});
          }});
}

}  // namespace onyx
