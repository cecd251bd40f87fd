// LazyTable (exec/lazy_table.h): a table copied out of a mapped file page by page as rows are read. The rows
// read hold the file's bytes, rows never read cost no memory, and neither does the mapping they came from:
// Linux's fault-around would otherwise leave 64 KB of the mapping resident per row read.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "exec/lazy_table.h"
#include "onnx_io_test_support.h"
#include "util/mapped_file.h"

namespace onyx::exec {
namespace {

using testing::ScratchFolder;

constexpr size_t kTableBytes = size_t(4) << 20;
constexpr size_t kRow = 1000;  // rows straddle pages now and then

std::shared_ptr<const MappedFile> mappedTable(const std::filesystem::path& path) {
  std::vector<unsigned char> bytes(kTableBytes);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + i / 4096);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  std::ifstream(path, std::ios::binary).ignore(std::streamsize(kTableBytes));  // in the page cache, as after a parse
  auto file = MappedFile::open(path);
  return file ? *file : nullptr;
}

// Resident kilobytes of the mapping that holds `address` (/proc/self/smaps).
long residentKilobytesAt(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2) inside = at >= begin && at < end;
    long kb = 0;
    if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) return kb;
  }
  return -1;
}

// A table over a 4 MiB mapped file whose pages are in the page cache.
class LazyTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file = mappedTable(folder / "table.bin");
    ASSERT_TRUE(file);
    table = LazyTable::copyOnRead(file->bytes(), file);
    ASSERT_TRUE(table);
  }

  ScratchFolder folder;
  std::shared_ptr<const MappedFile> file;
  std::shared_ptr<LazyTable> table;
};

TEST_F(LazyTableTest, RowsReadHoldTheFileAndTheRestStaysZero) {
  ASSERT_EQ(table->size(), kTableBytes);
  const size_t rows[] = {0, 4, 1000, 4193};  // row 4 straddles the first page boundary; 4193 is the last row
  for (size_t row : rows) table->ensure(row * kRow, kRow);
  const auto source = file->bytes();
  for (size_t row : rows)
    EXPECT_EQ(std::memcmp(table->data() + row * kRow, source.data() + row * kRow,
                          std::min(kRow, kTableBytes - row * kRow)), 0) << "row " << row;
  // A page no row touched was never copied.
  const size_t untouched = 2000 * kRow / 4096 * 4096;
  for (size_t i = untouched; i < untouched + 4096; ++i) ASSERT_EQ(table->data()[i], std::byte{0}) << i;
  table->ensure(kTableBytes - 10, 1000);  // past the end: clamped, no read beyond the table
  table->ensure(kTableBytes + 5, 10);
}

TEST_F(LazyTableTest, ReadingRowsLeavesTheMappingUnmapped) {
  for (size_t row = 0; row < 4000; row += 125) table->ensure(row * kRow, kRow);  // 32 rows, 125 KB apart
  const long lazy = residentKilobytesAt(file->bytes().data());
  ASSERT_GE(lazy, 0) << "no /proc/self/smaps";
  EXPECT_LE(lazy, 64) << "the mapping's pages around the rows read stayed resident";
  // The same rows read from the mapping directly, for comparison: each read maps the pages around it.
  volatile unsigned char sum = 0;
  for (size_t row = 0; row < 4000; row += 125) sum = sum + static_cast<unsigned char>(file->bytes()[row * kRow]);
  std::printf("mapping resident after 32 rows: %ld kB copied out, %ld kB read directly\n", lazy,
              residentKilobytesAt(file->bytes().data()));
}

TEST_F(LazyTableTest, ThreadsReadingOverlappingRowsSeeTheFile) {
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 random{unsigned(t)};
      for (int i = 0; i < 2000; ++i) {
        const size_t row = random() % 600;  // 600 rows on ~150 pages: threads meet on the same pages
        table->ensure(row * kRow, kRow);
        mismatches[size_t(t)] += std::memcmp(table->data() + row * kRow, file->bytes().data() + row * kRow, kRow) != 0;
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(mismatches[size_t(t)], 0) << "thread " << t;
}

TEST_F(LazyTableTest, KernelsFindTheTableThatHoldsTheirInput) {
  EXPECT_EQ(LazyTable::containing(table->data()), table.get());
  EXPECT_EQ(LazyTable::containing(table->data() + kTableBytes - 1), table.get());
  EXPECT_EQ(LazyTable::containing(table->data() + kTableBytes), nullptr);
  EXPECT_EQ(LazyTable::containing(file->bytes().data()), nullptr);  // the mapping itself is not the table
  const void* gone = table->data();
  table.reset();
  EXPECT_EQ(LazyTable::containing(gone), nullptr);
}

}  // namespace
}  // namespace onyx::exec
