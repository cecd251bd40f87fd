#pragma once
// Whether a Buffer's bytes lie in a memory map of a file (Buffer::view), not in memory of their own: the
// executor copies a gathered table out of such a mapping row by row (exec/lazy_table.h) instead of reading
// the mapping, which would make pages nobody asked for resident.
namespace onyx {

class Buffer;

bool isFileView(const Buffer& buffer);

}  // namespace onyx
