#pragma once
// A constant table read only by Gather (an embedding table), copied out of a mapped model file page by page
// as its rows are first gathered. Reading the mapping itself would cost more than the rows: Linux maps the
// 16 pages around each faulting page when they are in the page cache (always, once the file was parsed), and
// madvise(MADV_RANDOM) does not stop it, so bert_small_int4's 128 tokens made 5.5 MB of its 8 MB table
// resident. Here each page is copied into anonymous memory when a row on it is first read, and the mapping's
// pages around it are dropped again at once (MADV_DONTNEED on a read-only private mapping: they fault back
// in from the page cache if anything else reads them).
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>

namespace onyx::exec {

class LazyTable {
 public:
  // `source` stays readable while `keepSource` lives. Null where the anonymous memory cannot be reserved.
  static std::shared_ptr<LazyTable> copyOnRead(std::span<const std::byte> source,
                                               std::shared_ptr<const void> keepSource);
  ~LazyTable();
  LazyTable(const LazyTable&) = delete;
  LazyTable& operator=(const LazyTable&) = delete;

  // The table's bytes: those not yet made readable by `ensure` read as zeros.
  std::byte* data() const { return data_; }
  size_t size() const { return size_; }
  // Copies the pages under [offset, offset + length) that are not copied yet. Safe from several threads.
  void ensure(size_t offset, size_t length);

  // The table whose bytes hold `p`, or null. Kernels look their input up here: a table stays a plain
  // TensorValue view, and only Gather (the one reader plan_builder.cpp lets it have) needs to know.
  static LazyTable* containing(const void* p);

 private:
  LazyTable() = default;
  void copyPage(size_t page);

  std::span<const std::byte> source_;
  std::shared_ptr<const void> keepSource_;
  std::byte* data_ = nullptr;
  size_t size_ = 0;
  size_t reserved_ = 0;
  size_t pageSize_ = 4096;
  std::unique_ptr<std::atomic<bool>[]> copied_;
  std::mutex copying_;
};

}  // namespace onyx::exec
