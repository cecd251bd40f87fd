#pragma once
// Colours the profiling views share: a stable colour per op type (the same Conv everywhere), scope rows,
// the search highlight, and the heat ramp of the graph overlay.
#include <QColor>
#include <string_view>

namespace onyx::views {

inline const QColor kSearchHighlight{0xe0, 0x40, 0xe0};

QColor opTypeColor(std::string_view opType);
QColor scopeColor(int depth);
// t in [0, 1]: pale yellow (cold) to dark red (hot); lightness falls strictly as t grows.
QColor heatColor(double t);

}  // namespace onyx::views
