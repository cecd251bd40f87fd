#include "ir/sym_expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

namespace onyx {
namespace {

const SymExpr N = SymExpr::symbol("N");
const SymExpr M = SymExpr::symbol("M");
const SymExpr K = SymExpr::symbol("K");
const SymExpr H = SymExpr::symbol("H");
const SymExpr S = SymExpr::symbol("S");

SymExpr parsed(std::string_view text) {
  std::optional<SymExpr> e = SymExpr::parse(text);
  EXPECT_TRUE(e.has_value()) << "failed to parse: " << text;
  return e.value_or(SymExpr(-424242));
}

// ---- Canonical equality ----

TEST(SymExprCanonical, AdditionIsCommutativeAndAssociative) {
  EXPECT_EQ(N + M, M + N);
  EXPECT_EQ((N + M) + K, N + (M + K));
  EXPECT_EQ(N + 1 + M, M + (1 + N));
}

TEST(SymExprCanonical, LikeTermsCombine) {
  EXPECT_EQ(2 * N - N, N);
  EXPECT_TRUE((2 * N - N).isSymbol());
  EXPECT_EQ((2 * N - N).symbolName(), "N");
  EXPECT_EQ(N - N, SymExpr(0));
  EXPECT_TRUE((N * M - M * N).isConstant());
  EXPECT_EQ(3 * (N + 1) - 3, 3 * N);
}

TEST(SymExprCanonical, ProductsExpandToPolynomials) {
  EXPECT_EQ((N + 1) * (N + 1), N * N + 2 * N + 1);
  EXPECT_EQ((N + M) * (N - M), N * N - M * M);
  EXPECT_EQ(N * (M * K), (K * N) * M);
  EXPECT_EQ((N + 1) * (N + 1) - N * N - 2 * N, SymExpr(1));
}

TEST(SymExprCanonical, ConstantsFoldWithoutNodes) {
  SymExpr folded = (SymExpr(2) + 3) * 4 - 20;
  EXPECT_TRUE(folded.isConstant());
  EXPECT_EQ(folded.constantValue(), 0);
  EXPECT_EQ(SymExpr::floorDiv(17, 5), SymExpr(3));
  EXPECT_EQ(SymExpr::min(SymExpr(3), SymExpr(5)), SymExpr(3));
  EXPECT_EQ(SymExpr::max(SymExpr(3), SymExpr(5)), SymExpr(5));
  EXPECT_EQ(SymExpr(), SymExpr(0));
  EXPECT_FALSE(N.isConstant());
  EXPECT_EQ(N.constantValue(), std::nullopt);
}

TEST(SymExprCanonical, FloorDivisionByConstants) {
  EXPECT_EQ(SymExpr::floorDiv(2 * N, 2), N);
  EXPECT_EQ(SymExpr::floorDiv(N * 4 + 8, 4), N + 2);
  EXPECT_EQ(SymExpr::floorDiv(N + 4, 2), SymExpr::floorDiv(N, 2) + 2);
  EXPECT_EQ(SymExpr::floorDiv(N - 3, 2), SymExpr::floorDiv(N + 1, 2) - 2);
  EXPECT_EQ(SymExpr::floorDiv(SymExpr::floorDiv(N, 2), 3), SymExpr::floorDiv(N, 6));
  EXPECT_EQ(SymExpr::floorDiv(SymExpr::floorDiv(N, 2) + 1, 3), SymExpr::floorDiv(N + 2, 6));
  EXPECT_EQ(SymExpr::floorDiv(2 * N + 1, 4), SymExpr::floorDiv(N, 2));  // common factor 2
  EXPECT_EQ(SymExpr::floorDiv(N, 1), N);
  EXPECT_EQ(SymExpr::floorDiv(N, -1), -N);
  EXPECT_EQ(SymExpr::floorDiv(N, -2), SymExpr::floorDiv(-N, 2));
  EXPECT_EQ(SymExpr::floorDiv(3 * N, 2), N + SymExpr::floorDiv(N, 2));
  EXPECT_EQ(SymExpr::floorDiv(SymExpr::floorMod(N, 4), 8), SymExpr(0));  // 0 <= N % 4 < 8
}

TEST(SymExprCanonical, FloorModuloByConstants) {
  EXPECT_EQ(SymExpr::floorMod(4 * N, 2), SymExpr(0));
  EXPECT_EQ(SymExpr::floorMod(N + 2, 2), SymExpr::floorMod(N, 2));
  EXPECT_EQ(SymExpr::floorMod(N + 2 * M, 2), SymExpr::floorMod(N, 2));
  EXPECT_EQ(SymExpr::floorMod(SymExpr::floorMod(N, 4), 2), SymExpr::floorMod(N, 2));
  EXPECT_EQ(SymExpr::floorMod(SymExpr::floorMod(N, 4), 8), SymExpr::floorMod(N, 4));
  EXPECT_EQ(SymExpr::floorMod(2 * N + 1, 6), 2 * SymExpr::floorMod(N, 3) + 1);
  EXPECT_EQ(SymExpr::floorMod(N, 1), SymExpr(0));
  EXPECT_EQ(SymExpr::floorMod(N, -3), -SymExpr::floorMod(-N, 3));
}

TEST(SymExprCanonical, CeilDivision) {
  EXPECT_EQ(SymExpr::ceilDiv(N, 4), SymExpr::floorDiv(N + 3, 4));
  EXPECT_EQ(SymExpr::ceilDiv(4 * N, 4), N);
  EXPECT_EQ(SymExpr::ceilDiv(N, 1), N);
  EXPECT_EQ(SymExpr::ceilDiv(N + 4, 4), SymExpr::ceilDiv(N, 4) + 1);
  EXPECT_EQ(SymExpr::ceilDiv(N, M), -SymExpr::floorDiv(-N, M));
}

TEST(SymExprCanonical, MinAndMax) {
  EXPECT_EQ(SymExpr::max(N, N), N);
  EXPECT_EQ(SymExpr::min(N, N + 1), N);
  EXPECT_EQ(SymExpr::max(N, N + 1), N + 1);
  EXPECT_EQ(SymExpr::max(0, N), N);  // symbols are >= 0
  EXPECT_EQ(SymExpr::min(0, N), SymExpr(0));
  EXPECT_EQ(SymExpr::min(N, M), SymExpr::min(M, N));
  EXPECT_EQ(SymExpr::min(SymExpr::min(N, M), K), SymExpr::min(N, SymExpr::min(M, K)));
  EXPECT_EQ(SymExpr::min(SymExpr::min(N, M) + 1, K + 1), SymExpr::min(N + 1, SymExpr::min(M + 1, K + 1)));
  EXPECT_EQ(SymExpr::min(N + 1, M + 1), SymExpr::min(N, M) + 1);
  EXPECT_EQ(SymExpr::max(N - 1, 0), SymExpr::max(N, 1) - 1);
  EXPECT_EQ(SymExpr::min(N + 1, 9), SymExpr::min(N, 8) + 1);
  EXPECT_EQ(SymExpr::max(SymExpr::max(N, 3), 5), SymExpr::max(N, 5));
  EXPECT_NE(SymExpr::min(N, M), SymExpr::max(N, M));
}

TEST(SymExprCanonical, TruncDivisionOfKnownSignIsFloorDivision) {
  EXPECT_EQ(SymExpr::truncDiv(N, 2), SymExpr::floorDiv(N, 2));
  EXPECT_EQ(SymExpr::truncMod(N + 1, 3), SymExpr::floorMod(N + 1, 3));
  EXPECT_EQ(SymExpr::truncDiv(-N, 2), -SymExpr::floorDiv(N, 2));
  EXPECT_EQ(SymExpr::truncDiv(N, -2), -SymExpr::floorDiv(N, 2));
  EXPECT_EQ(SymExpr::truncMod(N, -3), SymExpr::floorMod(N, 3));
  EXPECT_NE(SymExpr::truncDiv(N - M, 2), SymExpr::floorDiv(N - M, 2));
  EXPECT_EQ(SymExpr::truncDiv(M - N, 2), -SymExpr::truncDiv(N - M, 2));
}

TEST(SymExprCanonical, DistinctExpressionsDiffer) {
  EXPECT_NE(N, M);
  EXPECT_NE(N + 1, N);
  EXPECT_NE(2 * N, N);
  EXPECT_NE(N * N, N);
  EXPECT_NE(N * M, N + M);
  EXPECT_NE(SymExpr::floorDiv(N, 2), SymExpr::floorDiv(N, 3));
  EXPECT_NE(SymExpr::floorDiv(N, 2), SymExpr::floorMod(N, 2));
  EXPECT_NE(SymExpr::floorDiv(N, M), SymExpr::floorDiv(M, N));
  EXPECT_NE(SymExpr(1), N);
  EXPECT_NE(SymExpr::symbol("n"), N);
}

// ---- Evaluation and division semantics ----

TEST(SymExprEvaluate, FloorRoundsDownTruncRoundsToZero) {
  EXPECT_EQ(SymExpr::floorDiv(-7, 2), SymExpr(-4));
  EXPECT_EQ(SymExpr::truncDiv(-7, 2), SymExpr(-3));
  EXPECT_EQ(SymExpr::floorMod(-7, 2), SymExpr(1));
  EXPECT_EQ(SymExpr::truncMod(-7, 2), SymExpr(-1));
  EXPECT_EQ(SymExpr::floorDiv(7, -2), SymExpr(-4));
  EXPECT_EQ(SymExpr::floorMod(7, -2), SymExpr(-1));
  EXPECT_EQ(SymExpr::truncMod(7, -2), SymExpr(1));
  EXPECT_EQ(SymExpr::ceilDiv(-7, 2), SymExpr(-3));
  EXPECT_EQ(SymExpr::ceilDiv(7, 2), SymExpr(4));

  // The same through symbols: N - M is negative when M > N.
  SymBindings bindings{{"N", 0}, {"M", 7}, {"K", 2}};
  EXPECT_EQ(SymExpr::floorDiv(N - M, K).evaluate(bindings), -4);
  EXPECT_EQ(SymExpr::truncDiv(N - M, K).evaluate(bindings), -3);
  EXPECT_EQ(SymExpr::floorMod(N - M, K).evaluate(bindings), 1);
  EXPECT_EQ(SymExpr::truncMod(N - M, K).evaluate(bindings), -1);
  EXPECT_EQ(SymExpr::floorDiv(N - M, 2).evaluate(bindings), -4);
  EXPECT_EQ(SymExpr::truncDiv(N - M, 2).evaluate(bindings), -3);
  EXPECT_EQ(SymExpr::floorMod(N - M, 2).evaluate(bindings), 1);
  EXPECT_EQ(SymExpr::truncMod(N - M, 2).evaluate(bindings), -1);
  EXPECT_EQ(SymExpr::ceilDiv(N - M, K).evaluate(bindings), -3);
  EXPECT_EQ(SymExpr::floorDiv(M, N - K).evaluate(bindings), -4);  // 7 // -2
  EXPECT_EQ(SymExpr::floorMod(M, N - K).evaluate(bindings), -1);  // 7 % -2
}

TEST(SymExprEvaluate, UnboundSymbolGivesNullopt) {
  EXPECT_EQ((N + M).evaluate({{"N", 3}}), std::nullopt);
  EXPECT_EQ((N + M).evaluate({{"N", 3}, {"M", 4}}), 7);
  EXPECT_EQ((N * N * M).evaluate({{"N", 3}, {"M", 4}}), 36);
  EXPECT_EQ(SymExpr(5).evaluate({}), 5);
}

TEST(SymExprEvaluate, DivisionByZeroIsUndefinedAndStaysUndefined) {
  SymBindings bindings{{"N", 6}, {"M", 0}};
  SymExpr undefined = SymExpr::floorDiv(N, 0);
  EXPECT_EQ(undefined.evaluate(bindings), std::nullopt);
  EXPECT_EQ((0 * undefined).evaluate(bindings), std::nullopt);
  EXPECT_EQ((undefined - undefined).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::max(undefined, N).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::floorMod(N, 0).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::truncDiv(N, 0).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::truncMod(N, 0).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::ceilDiv(N, 0).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::floorDiv(N, M - M).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::floorDiv(7, 0).evaluate(bindings), std::nullopt);
  EXPECT_EQ(undefined.provablyNonNegative(), std::nullopt);
  EXPECT_EQ(undefined.provablyEqual(undefined), std::nullopt);
  EXPECT_EQ(undefined.toString(), "floor(1/0)");
  EXPECT_EQ(parsed(undefined.toString()), undefined);
  // A divisor that is zero only for some bindings stays symbolic.
  EXPECT_EQ(SymExpr::floorDiv(N, M).evaluate(bindings), std::nullopt);
  EXPECT_EQ(SymExpr::floorDiv(N, M).evaluate({{"N", 6}, {"M", 4}}), 1);
}

TEST(SymExprEvaluate, OverflowGivesNullopt) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ((N * N).evaluate({{"N", big}}), std::nullopt);
  EXPECT_EQ((N * N).evaluate({{"N", 1 << 20}}), int64_t{1} << 40);
  EXPECT_EQ((SymExpr(std::numeric_limits<int64_t>::max()) + 1).evaluate({}), std::nullopt);
  EXPECT_EQ(SymExpr::floorDiv(std::numeric_limits<int64_t>::min(), -1).evaluate({}), std::nullopt);
  EXPECT_EQ((SymExpr(-1) - std::numeric_limits<int64_t>::min()).constantValue(),
            std::numeric_limits<int64_t>::max());
}

// ---- Shape formulas ----

int64_t pythonFloorDiv(int64_t a, int64_t b) {
  int64_t remainder = ((a % b) + b) % b;
  return (a - remainder) / b;
}

TEST(SymExprShapes, ConvOutputSizeMatchesIntegerFormula) {
  struct Conv {
    int64_t kernel, stride, pad, dilation;
  };
  for (Conv conv : {Conv{3, 1, 1, 1}, Conv{3, 2, 1, 1}, Conv{7, 2, 3, 1}, Conv{1, 1, 0, 1}, Conv{3, 2, 0, 1},
                    Conv{5, 3, 2, 2}, Conv{2, 2, 0, 1}}) {
    SymExpr effectiveKernel = conv.dilation * (conv.kernel - 1) + 1;
    SymExpr out = SymExpr::floorDiv(H + 2 * conv.pad - effectiveKernel, conv.stride) + 1;
    EXPECT_EQ(parsed(out.toString()), out);
    for (int64_t h = 0; h <= 64; ++h) {
      int64_t direct =
          pythonFloorDiv(h + 2 * conv.pad - conv.dilation * (conv.kernel - 1) - 1, conv.stride) + 1;
      EXPECT_EQ(out.evaluate({{"H", h}}), direct) << out.toString() << " at H=" << h;
    }
  }
  // Same padding, stride 2: ceil(H/2).
  EXPECT_EQ(SymExpr::floorDiv(H + 2 - 3, 2) + 1, SymExpr::ceilDiv(H, 2));
  EXPECT_EQ((SymExpr::floorDiv(H + 2 - 3, 2) + 1).toString(), "ceil(H/2)");
  EXPECT_EQ(SymExpr::floorDiv(H + 2 - 3, 1) + 1, H);
}

TEST(SymExprShapes, RangeLengthMatchesOnnxFormula) {
  const SymExpr limit = SymExpr::symbol("limit");
  const SymExpr start = SymExpr::symbol("start");
  for (int64_t delta : {1, 2, 3, 5, -1, -2, -4}) {
    SymExpr length = SymExpr::max(SymExpr::ceilDiv(limit - start, delta), 0);
    EXPECT_EQ(parsed(length.toString()), length);
    for (int64_t l = 0; l <= 20; ++l) {
      for (int64_t s = 0; s <= 20; ++s) {
        int64_t direct = std::max<int64_t>(static_cast<int64_t>(std::ceil(double(l - s) / double(delta))), 0);
        EXPECT_EQ(length.evaluate({{"limit", l}, {"start", s}}), direct) << length.toString();
      }
    }
  }
  EXPECT_EQ(SymExpr::ceilDiv(limit, 2).toString(), "ceil(limit/2)");
  EXPECT_EQ(SymExpr::max(SymExpr::ceilDiv(limit, 3), 0), SymExpr::ceilDiv(limit, 3));
}

// ---- Printing and parsing ----

TEST(SymExprPrint, IsReadable) {
  EXPECT_EQ((N * S).toString(), "N*S");
  EXPECT_EQ((N + M).toString(), "M + N");
  EXPECT_EQ((N - 1).toString(), "N - 1");
  EXPECT_EQ((1 + H).toString(), "H + 1");
  EXPECT_EQ((2 * N).toString(), "2*N");
  EXPECT_EQ((N * N).toString(), "N^2");
  EXPECT_EQ(((N + 1) * (N + 1)).toString(), "N^2 + 2*N + 1");
  EXPECT_EQ((1 - N).toString(), "-N + 1");
  EXPECT_EQ((-2 * N * M).toString(), "-2*M*N");
  EXPECT_EQ(SymExpr::ceilDiv(N, 4).toString(), "ceil(N/4)");
  EXPECT_EQ(SymExpr::ceilDiv(N, M).toString(), "ceil(N/M)");
  EXPECT_EQ(SymExpr::min(N, 8).toString(), "min(N, 8)");
  EXPECT_EQ(SymExpr::max(N - 1, 0).toString(), "max(N - 1, 0)");
  EXPECT_EQ((SymExpr::min(N, M) + 1).toString(), "min(M, N) + 1");
  EXPECT_EQ(SymExpr::min(N + 1, 9).toString(), "min(N + 1, 9)");
  EXPECT_EQ((SymExpr::max(N, 3) - 3).toString(), "max(N - 3, 0)");
  EXPECT_EQ(SymExpr::max(N, SymExpr::max(M, 8)).toString(), "max(M, N, 8)");
  EXPECT_EQ(SymExpr::floorDiv(N, 2).toString(), "floor(N/2)");
  EXPECT_EQ((SymExpr::floorDiv(H - 2, 2) + 1).toString(), "floor(H/2)");
  EXPECT_EQ((SymExpr::floorDiv(H + S, 2) + 1).toString(), "floor((H + S)/2) + 1");
  EXPECT_EQ(SymExpr::floorDiv(N, M * K).toString(), "floor(N/(K*M))");
  EXPECT_EQ(SymExpr::floorMod(N, 4).toString(), "N % 4");
  EXPECT_EQ((2 * SymExpr::floorMod(N, 4) + 1).toString(), "2*(N % 4) + 1");
  EXPECT_EQ((N - M).toString(), "N - M");
  EXPECT_EQ((N - 2 * M * N + S - 3).toString(), "N + S - 2*M*N - 3");
  EXPECT_EQ(SymExpr::truncDiv(M - N, 2).toString(), "trunc((M - N)/2)");
  EXPECT_EQ(SymExpr::truncDiv(N - M, 2).toString(), "-trunc((M - N)/2)");  // sign kept outside
  EXPECT_EQ(SymExpr::truncMod(M - N, 3).toString(), "fmod(M - N, 3)");
  EXPECT_EQ((N + SymExpr::floorDiv(M, 2)).toString(), "N + floor(M/2)");
  EXPECT_EQ(SymExpr::symbol("batch-size").toString(), "`batch-size`");
  EXPECT_EQ(SymExpr(-5).toString(), "-5");
}

TEST(SymExprParse, AcceptsOperatorsLiteralsAndNames) {
  EXPECT_EQ(parsed("N // 2"), SymExpr::floorDiv(N, 2));
  EXPECT_EQ(parsed("N % 2"), SymExpr::floorMod(N, 2));
  EXPECT_EQ(parsed("-7 // 2"), SymExpr(-4));
  EXPECT_EQ(parsed("-7 % 2"), SymExpr(1));
  EXPECT_EQ(parsed("2*(N+1)"), 2 * N + 2);
  EXPECT_EQ(parsed("  N *  M\t+ 1 "), N * M + 1);
  EXPECT_EQ(parsed("N^3"), N * N * N);
  EXPECT_EQ(parsed("-2^2"), SymExpr(-4));
  EXPECT_EQ(parsed("min(N, M, 8)"), SymExpr::min(N, SymExpr::min(M, 8)));
  EXPECT_EQ(parsed("ceil((N - 1)/4)"), SymExpr::ceilDiv(N - 1, 4));
  EXPECT_EQ(parsed("trunc(N/M)"), SymExpr::truncDiv(N, M));
  EXPECT_EQ(parsed("fmod(N, M)"), SymExpr::truncMod(N, M));
  EXPECT_EQ(parsed("batch_size*sequence"), SymExpr::symbol("batch_size") * SymExpr::symbol("sequence"));
  EXPECT_EQ(parsed("unk__12 + 1"), SymExpr::symbol("unk__12") + 1);
  EXPECT_EQ(parsed("Addoutput_dim_1"), SymExpr::symbol("Addoutput_dim_1"));
  EXPECT_EQ(parsed("x.y:z"), SymExpr::symbol("x.y:z"));
  EXPECT_EQ(parsed("`batch-size` + 1"), SymExpr::symbol("batch-size") + 1);
  EXPECT_EQ(parsed("min"), SymExpr::symbol("min"));  // a function name without '(' is a symbol
}

TEST(SymExprParse, MinusAndSlashAreNeverPartOfAName) {
  EXPECT_EQ(parsed("N-1"), N - 1);
  EXPECT_EQ(parsed("a-b"), SymExpr::symbol("a") - SymExpr::symbol("b"));
  EXPECT_EQ(parsed("a - b"), SymExpr::symbol("a") - SymExpr::symbol("b"));
  EXPECT_EQ(parsed("a//b"), SymExpr::floorDiv(SymExpr::symbol("a"), SymExpr::symbol("b")));
  EXPECT_EQ(SymExpr::parse("a/b"), std::nullopt);  // floor or trunc? Say which.
}

TEST(SymExprParse, RejectsSyntaxErrors) {
  for (std::string_view text :
       {"", "N +", "(N", "N)", "N/2", "2N", "floor(N)", "foo(N)", "N ** 2", "min(N)", "fmod(N, M, K)",
        "`unterminated", "99999999999999999999", "N $ 2", "N M", "floor(N // 2)", "(N + 1)^65", "1.5"}) {
    EXPECT_EQ(SymExpr::parse(text), std::nullopt) << text;
  }
  EXPECT_EQ(SymExpr::parse(std::string(100000, '(')), std::nullopt);
  EXPECT_EQ(SymExpr::parse(std::string(100000, '-') + "N"), std::nullopt);
}

TEST(SymExprParse, RoundTripsExtremeValuesAndNames) {
  const int64_t smallest = std::numeric_limits<int64_t>::min();
  for (SymExpr e :
       {SymExpr(smallest), SymExpr(std::numeric_limits<int64_t>::max()), smallest * N, N + smallest,
        N - std::numeric_limits<int64_t>::max(), SymExpr::symbol("a`b\\c"), SymExpr::symbol(""),
        SymExpr::symbol("2x"), SymExpr::symbol("min") + SymExpr::symbol("floor"),
        SymExpr::floorDiv(N, smallest), N * N * N * N * M}) {
    EXPECT_EQ(parsed(e.toString()), e) << e.toString();
  }
}

// ---- Random expressions, evaluated both canonically and naively ----

// A randomly built expression together with a direct evaluation of the same construction.
struct Built {
  SymExpr expr;
  std::function<std::optional<int64_t>(const SymBindings&)> naive;
};

using Naive = std::function<std::optional<int64_t>(const SymBindings&)>;

// Python semantics computed a different way than the implementation does it.
std::optional<int64_t> naiveFloorMod(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  return ((a % b) + b) % b;
}
std::optional<int64_t> naiveFloorDiv(int64_t a, int64_t b) {
  if (b == 0) return std::nullopt;
  return (a - *naiveFloorMod(a, b)) / b;
}

class RandomExprs {
 public:
  explicit RandomExprs(uint32_t seed) : rng_(seed) {}

  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }

  SymBindings bindings() { return {{"N", uniform(0, 12)}, {"M", uniform(0, 12)}, {"K", uniform(0, 12)}}; }

  Built build(int depth) {
    if (depth == 0 || uniform(0, 4) == 0) return leaf();
    int op = static_cast<int>(uniform(0, 11));
    Built a = build(depth - 1);
    // Divisors are mostly small constants, now and then zero, negative or symbolic.
    Built b = op >= 3 && op <= 7 && uniform(0, 3) != 0 ? constant(uniform(-4, 4)) : build(depth - 1);
    switch (op) {
      case 0:
        return combine(a.expr + b.expr, a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> { return x + y; });
      case 1:
        return combine(a.expr - b.expr, a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> { return x - y; });
      case 2:
        return combine(a.expr * b.expr, a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> { return x * y; });
      case 3:
        return combine(SymExpr::floorDiv(a.expr, b.expr), a, b, naiveFloorDiv);
      case 4:
        return combine(SymExpr::ceilDiv(a.expr, b.expr), a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> {
                         if (y == 0) return std::nullopt;
                         return -*naiveFloorDiv(-x, y);
                       });
      case 5:
        return combine(SymExpr::floorMod(a.expr, b.expr), a, b, naiveFloorMod);
      case 6:
        return combine(SymExpr::truncDiv(a.expr, b.expr), a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> {
                         if (y == 0) return std::nullopt;
                         return x / y;
                       });
      case 7:
        return combine(SymExpr::truncMod(a.expr, b.expr), a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> {
                         if (y == 0) return std::nullopt;
                         return x % y;
                       });
      case 8:
        return combine(SymExpr::min(a.expr, b.expr), a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> { return std::min(x, y); });
      case 9:
        return combine(SymExpr::max(a.expr, b.expr), a, b,
                       [](int64_t x, int64_t y) -> std::optional<int64_t> { return std::max(x, y); });
      case 10:
        return {-a.expr, [f = a.naive](const SymBindings& bindings) -> std::optional<int64_t> {
                  std::optional<int64_t> x = f(bindings);
                  return x ? std::optional<int64_t>(-*x) : std::nullopt;
                }};
      default: {
        int64_t k = uniform(-3, 3);
        return combine(a.expr + b.expr * k, a, b,
                       [k](int64_t x, int64_t y) -> std::optional<int64_t> { return x + y * k; });
      }
    }
  }

 private:
  static constexpr int64_t kLimit = int64_t{1} << 40;  // keeps every naive step far from overflow

  Built constant(int64_t value) {
    return {value, [value](const SymBindings&) -> std::optional<int64_t> { return value; }};
  }

  Built leaf() {
    if (uniform(0, 2) == 0) return constant(uniform(-6, 6));
    std::string name(1, "NMK"[uniform(0, 2)]);
    return {SymExpr::symbol(name), [name](const SymBindings& bindings) -> std::optional<int64_t> {
              auto it = bindings.find(name);
              return it == bindings.end() ? std::nullopt : std::optional<int64_t>(it->second);
            }};
  }

  Built combine(SymExpr expr, const Built& a, const Built& b,
                std::function<std::optional<int64_t>(int64_t, int64_t)> op) {
    return {expr, [fa = a.naive, fb = b.naive, op](const SymBindings& bindings) -> std::optional<int64_t> {
              std::optional<int64_t> x = fa(bindings), y = fb(bindings);
              if (!x || !y) return std::nullopt;
              std::optional<int64_t> result = op(*x, *y);
              if (result && (*result > kLimit || *result < -kLimit)) return std::nullopt;
              return result;
            }};
  }

  std::mt19937 rng_;
};

TEST(SymExprProperty, CanonicalFormEvaluatesLikeItsConstruction) {
  RandomExprs random(20240611);
  int compared = 0;
  for (int i = 0; i < 3000; ++i) {
    Built built = random.build(4);
    for (int j = 0; j < 8; ++j) {
      SymBindings bindings = random.bindings();
      std::optional<int64_t> expected = built.naive(bindings);
      if (!expected) continue;  // the construction divided by zero; canonical forms may cancel that away
      ++compared;
      ASSERT_EQ(built.expr.evaluate(bindings), expected) << built.expr.toString() << " at N=" << bindings["N"]
                                                         << " M=" << bindings["M"] << " K=" << bindings["K"];
    }
  }
  EXPECT_GT(compared, 15000);
}

// Dense coverage of division canonicalisation: linear numerators, every divisor sign, nested divisions.
TEST(SymExprProperty, DivisionOfLinearFormsEvaluatesLikeIntegers) {
  std::mt19937 rng(31337);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  for (int i = 0; i < 3000; ++i) {
    int64_t a = uniform(-9, 9), b = uniform(-9, 9), c = uniform(-20, 20);
    int64_t d = uniform(-8, 8), e = uniform(1, 5);
    if (d == 0) continue;
    SymExpr numerator = a * N + b * M + c;
    SymExpr floorDiv = SymExpr::floorDiv(numerator, d), floorMod = SymExpr::floorMod(numerator, d);
    SymExpr truncDiv = SymExpr::truncDiv(numerator, d), truncMod = SymExpr::truncMod(numerator, d);
    SymExpr ceilDiv = SymExpr::ceilDiv(numerator, d);
    int64_t k = uniform(-3, 3);
    SymExpr nestedDiv = SymExpr::floorDiv(floorDiv + k * N + 1, e);
    SymExpr nestedMod = SymExpr::floorMod(floorMod + c, e);
    for (int j = 0; j < 4; ++j) {
      int64_t n = uniform(0, 30), m = uniform(0, 30);
      SymBindings bindings{{"N", n}, {"M", m}};
      int64_t x = a * n + b * m + c;
      EXPECT_EQ(floorDiv.evaluate(bindings), *naiveFloorDiv(x, d)) << floorDiv.toString();
      EXPECT_EQ(floorMod.evaluate(bindings), *naiveFloorMod(x, d)) << floorMod.toString();
      EXPECT_EQ(truncDiv.evaluate(bindings), x / d) << truncDiv.toString();
      EXPECT_EQ(truncMod.evaluate(bindings), x % d) << truncMod.toString();
      EXPECT_EQ(ceilDiv.evaluate(bindings), -*naiveFloorDiv(-x, d)) << ceilDiv.toString();
      EXPECT_EQ(nestedDiv.evaluate(bindings), *naiveFloorDiv(*naiveFloorDiv(x, d) + k * n + 1, e))
          << nestedDiv.toString();
      EXPECT_EQ(nestedMod.evaluate(bindings), *naiveFloorMod(*naiveFloorMod(x, d) + c, e))
          << nestedMod.toString();
    }
  }
}

TEST(SymExprProperty, PrintParseRoundTrip) {
  RandomExprs random(7);
  for (int i = 0; i < 3000; ++i) {
    SymExpr e = random.build(5).expr;
    std::string text = e.toString();
    std::optional<SymExpr> back = SymExpr::parse(text);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_EQ(*back, e) << text << " came back as " << back->toString();
    EXPECT_EQ(back->toString(), text);
  }
}

TEST(SymExprProperty, SubstituteAgreesWithBinding) {
  RandomExprs random(99);
  for (int i = 0; i < 1000; ++i) {
    SymExpr e = random.build(3).expr;
    SymExpr replacement = random.build(2).expr;
    SymExpr substituted = e.substitute({{"N", replacement}});
    for (int j = 0; j < 5; ++j) {
      SymBindings bindings = random.bindings();
      std::optional<int64_t> value = replacement.evaluate(bindings);
      std::optional<int64_t> direct = substituted.evaluate(bindings);
      if (!value || *value < 0 || !direct) continue;  // symbols are non-negative by contract
      SymBindings rebound = bindings;
      rebound["N"] = *value;
      std::optional<int64_t> expected = e.evaluate(rebound);
      if (expected) {
        EXPECT_EQ(direct, expected) << e.toString() << " with N := " << replacement.toString();
      }
    }
  }
}

TEST(SymExprProperty, ProvableFactsHoldOnSamples) {
  RandomExprs random(4242);
  int decided = 0;
  for (int i = 0; i < 2000; ++i) {
    SymExpr a = random.build(3).expr, b = random.build(3).expr;
    std::optional<bool> nonNegative = a.provablyNonNegative();
    std::optional<bool> less = a.provablyLess(b);
    std::optional<bool> equal = a.provablyEqual(b);
    decided += nonNegative.has_value() + less.has_value() + equal.has_value();
    for (int j = 0; j < 8; ++j) {
      SymBindings bindings = random.bindings();
      std::optional<int64_t> x = a.evaluate(bindings), y = b.evaluate(bindings);
      if (x && nonNegative) {
        EXPECT_EQ(*x >= 0, *nonNegative) << a.toString();
      }
      if (x && y && less) {
        EXPECT_EQ(*x < *y, *less) << a.toString() << " < " << b.toString();
      }
      if (x && y && equal) {
        EXPECT_EQ(*x == *y, *equal) << a.toString() << " == " << b.toString();
      }
    }
  }
  EXPECT_GT(decided, 1000);
}

// ---- Substitution, symbols, provable facts ----

TEST(SymExprSubstitute, ReplacesAndRecanonicalises) {
  SymExpr e = N * N + SymExpr::floorDiv(N, 2);
  EXPECT_EQ(e.substitute({{"N", M + 1}}), (M + 1) * (M + 1) + SymExpr::floorDiv(M + 1, 2));
  EXPECT_EQ(e.substitute({{"N", 7}}), SymExpr(52));
  EXPECT_TRUE(e.substitute({{"N", 7}}).isConstant());
  EXPECT_EQ(SymExpr::min(N, M).substitute({{"M", N + 1}}), N);
  EXPECT_EQ(SymExpr::floorDiv(N, 2).substitute({{"N", 2 * M}}), M);
  EXPECT_EQ(e.substitute({{"K", M}}), e);
  EXPECT_EQ(SymExpr::floorDiv(N, M).substitute({{"M", 0}}).evaluate({{"N", 1}}), std::nullopt);
  EXPECT_EQ((N + M).substitute({{"N", M}, {"M", N}}), N + M);  // simultaneous, not sequential
}

TEST(SymExprSubstitute, SymbolsAreSortedAndUnique) {
  SymExpr e = N * M + SymExpr::floorDiv(K, N) + SymExpr::min(M, 3);
  EXPECT_EQ(e.symbols(), (std::vector<std::string>{"K", "M", "N"}));
  EXPECT_TRUE(SymExpr(3).symbols().empty());
  EXPECT_EQ(N.symbolName(), "N");
  EXPECT_EQ((N + 1).symbolName(), "");
  EXPECT_FALSE((N + 1).isSymbol());
}

TEST(SymExprProvable, OrdersOnLinearForms) {
  EXPECT_EQ(N.provablyLess(N + 1), true);
  EXPECT_EQ((N + 1).provablyLess(N), false);
  EXPECT_EQ(N.provablyLess(N), false);
  EXPECT_EQ(N.provablyLess(M), std::nullopt);
  EXPECT_EQ(N.provablyLess(2 * N + M + 1), true);
  EXPECT_EQ((N - M).provablyNonNegative(), std::nullopt);
  EXPECT_EQ((N * M + 3).provablyNonNegative(), true);
  EXPECT_EQ((-N - 1).provablyNonNegative(), false);
  EXPECT_EQ(SymExpr::floorMod(N, 4).provablyLess(4), true);
  EXPECT_EQ(SymExpr::min(N, 3).provablyLess(4), true);
  EXPECT_EQ(SymExpr::floorDiv(N + 3, 4).provablyNonNegative(), true);
}

TEST(SymExprProvable, Equality) {
  EXPECT_EQ(SymExpr::floorDiv(2 * N, 2).provablyEqual(N), true);
  EXPECT_EQ(N.provablyEqual(N + 1), false);
  EXPECT_EQ(N.provablyEqual(M), std::nullopt);
  EXPECT_EQ((N + M + 1).provablyEqual(N), false);
  EXPECT_EQ(SymExpr(3).provablyEqual(4), false);
}

// ---- Hash and order ----

TEST(SymExprHash, ConsistentWithEquality) {
  std::vector<std::pair<SymExpr, SymExpr>> equalPairs = {
      {N + M, M + N},
      {2 * N - N, N},
      {(N + 1) * (N + 1), N * N + 2 * N + 1},
      {SymExpr::floorDiv(N * 4 + 8, 4), N + 2},
      {SymExpr::min(N, M), SymExpr::min(M, N)},
      {SymExpr(5), SymExpr(2) + 3},
  };
  for (const auto& [a, b] : equalPairs) {
    EXPECT_EQ(a, b);
    EXPECT_EQ(a.hash(), b.hash()) << a.toString();
    EXPECT_EQ(std::hash<SymExpr>{}(a), b.hash());
  }
  std::unordered_set<SymExpr> set = {N + M, M + N, N, 2 * N - N, SymExpr(1)};
  EXPECT_EQ(set.size(), 3u);

  RandomExprs random(5);
  std::set<SymExpr> distinct;
  std::unordered_set<size_t> hashes;
  for (int i = 0; i < 2000; ++i) {
    SymExpr e = random.build(4).expr;
    if (distinct.insert(e).second) hashes.insert(e.hash());
  }
  EXPECT_GE(hashes.size() * 100, distinct.size() * 99);  // hardly any collisions
}

TEST(SymExprOrder, IsATotalOrderConsistentWithEquality) {
  RandomExprs random(11);
  std::vector<SymExpr> exprs;
  for (int i = 0; i < 150; ++i) exprs.push_back(random.build(3).expr);
  exprs.push_back(exprs.front() + 0);  // an equal copy
  for (const SymExpr& a : exprs) {
    EXPECT_FALSE(a < a);
    for (const SymExpr& b : exprs) {
      EXPECT_EQ((a < b) + (b < a) + (a == b), 1) << a.toString() << " vs " << b.toString();
    }
  }
  for (size_t i = 0; i < 40; ++i) {
    for (size_t j = 0; j < 40; ++j) {
      for (size_t k = 0; k < 40; ++k) {
        if (exprs[i] < exprs[j] && exprs[j] < exprs[k]) {
          EXPECT_TRUE(exprs[i] < exprs[k]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace onyx
