#include "exec/lazy_table.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <shared_mutex>
#include <vector>

namespace onyx::exec {

namespace {

// Linux's fault_around_bytes, the window a read fault maps (its default; larger settings leave some pages
// mapped, never wrong bytes).
constexpr uintptr_t kFaultAroundBytes = 64 * 1024;

struct Registry {
  std::shared_mutex mutex;
  std::vector<LazyTable*> tables;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

uintptr_t alignDown(uintptr_t p, uintptr_t to) { return p / to * to; }
uintptr_t alignUp(uintptr_t p, uintptr_t to) { return (p + to - 1) / to * to; }

}  // namespace

std::shared_ptr<LazyTable> LazyTable::copyOnRead(std::span<const std::byte> source,
                                                 std::shared_ptr<const void> keepSource) {
  std::shared_ptr<LazyTable> table(new LazyTable);
  table->pageSize_ = size_t(::sysconf(_SC_PAGESIZE));
  table->size_ = source.size();
  table->reserved_ = alignUp(std::max<size_t>(source.size(), 1), table->pageSize_);
  void* memory = ::mmap(nullptr, table->reserved_, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  table->data_ = static_cast<std::byte*>(memory);
  table->source_ = source;
  table->keepSource_ = std::move(keepSource);
  const size_t pages = table->reserved_ / table->pageSize_;
  table->copied_ = std::make_unique<std::atomic<bool>[]>(pages);
  for (size_t i = 0; i < pages; ++i) table->copied_[i].store(false, std::memory_order_relaxed);
  Registry& all = registry();
  std::unique_lock lock(all.mutex);
  all.tables.push_back(table.get());
  return table;
}

LazyTable::~LazyTable() {
  {
    Registry& all = registry();
    std::unique_lock lock(all.mutex);
    std::erase(all.tables, this);
  }
  if (data_) ::munmap(data_, reserved_);
}

LazyTable* LazyTable::containing(const void* p) {
  Registry& all = registry();
  std::shared_lock lock(all.mutex);
  if (all.tables.empty()) return nullptr;
  const auto* byte = static_cast<const std::byte*>(p);
  for (LazyTable* table : all.tables)
    if (byte >= table->data_ && byte < table->data_ + table->size_) return table;
  return nullptr;
}

void LazyTable::ensure(size_t offset, size_t length) {
  if (length == 0 || offset >= size_) return;
  const size_t last = (std::min(offset + length, size_) - 1) / pageSize_;
  for (size_t page = offset / pageSize_; page <= last; ++page) {
    if (copied_[page].load(std::memory_order_acquire)) continue;
    std::lock_guard lock(copying_);
    if (!copied_[page].load(std::memory_order_relaxed)) copyPage(page);
  }
}

void LazyTable::copyPage(size_t page) {
  const size_t begin = page * pageSize_;
  const size_t length = std::min(pageSize_, size_ - begin);
  std::memcpy(data_ + begin, source_.data() + begin, length);
  copied_[page].store(true, std::memory_order_release);
  // Drop what the read just mapped: the fault-around window, within the table's own pages.
  const auto tableBegin = alignDown(reinterpret_cast<uintptr_t>(source_.data()), pageSize_);
  const auto tableEnd = alignUp(reinterpret_cast<uintptr_t>(source_.data() + size_), pageSize_);
  const auto read = reinterpret_cast<uintptr_t>(source_.data() + begin);
  const uintptr_t from = std::max(tableBegin, alignDown(read, kFaultAroundBytes));
  const uintptr_t to = std::min(tableEnd, alignUp(read + length, kFaultAroundBytes));
  if (from < to) (void)::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
}

}  // namespace onyx::exec
