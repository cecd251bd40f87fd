// ChangeLog (the edits of one step, undone and redone as a unit, or cut per rewrite for Step Into) and
// Transaction (a ChangeLog being recorded, reverted unless committed). The edits themselves are the
// Rewriter's (rewriter.cpp).
#include <cassert>
#include <iterator>
#include <stdexcept>

#include "ir/rewriter.h"

namespace onyx {

void ChangeLog::undo() {
  assert(!undone_);
  for (auto it = edits_.rbegin(); it != edits_.rend(); ++it) it->unapply();
  undone_ = true;
}

void ChangeLog::redo() {
  assert(undone_);
  for (auto& edit : edits_) edit.apply(true);
  undone_ = false;
}

std::vector<std::shared_ptr<ChangeLog>> ChangeLog::split(const std::vector<size_t>& ends) {
  assert(!undone_);
  std::vector<std::shared_ptr<ChangeLog>> parts;
  size_t begin = 0;
  for (size_t i = 0; i < ends.size(); ++i) {
    assert(ends[i] >= begin && ends[i] <= edits_.size());
    const size_t end = i + 1 == ends.size() ? edits_.size() : ends[i];
    auto part = std::make_shared<ChangeLog>();
    part->model_ = model_;
    part->label_ = label_;
    part->edits_.assign(std::make_move_iterator(edits_.begin() + std::ptrdiff_t(begin)),
                        std::make_move_iterator(edits_.begin() + std::ptrdiff_t(end)));
    parts.push_back(std::move(part));
    begin = end;
  }
  edits_.clear();
  return parts;
}

Transaction::Transaction(Model& model, std::string label) : model_(&model), log_(std::make_shared<ChangeLog>()) {
  if (model.activeTransaction_) throw std::logic_error("a transaction is already open on this model");
  log_->model_ = &model;
  log_->label_ = std::move(label);
  model.activeTransaction_ = this;
}

Transaction::~Transaction() {
  if (log_) revert();
}

std::shared_ptr<ChangeLog> Transaction::commit() {
  assert(log_);
  model_->activeTransaction_ = nullptr;
  return std::move(log_);
}

void Transaction::revert() {
  assert(log_);
  model_->activeTransaction_ = nullptr;
  log_->undo();
  log_.reset();
}

}  // namespace onyx
