// Panels of a block-cyclic index range: the unit of work and communication of SUMMA-style
// GEMMs, which walk the k dimension panel by panel, broadcasting sub(A)'s panel along process
// rows from its owning process column and sub(B)'s along process columns from its owning row.
//
// panels(dim, start, n, max_width) cuts the global range [start, start + n) of one dimension
// into consecutive panels, each as wide as possible but never wider than max_width and never
// crossing a block boundary of the distribution, so that every panel lies on one process
// coordinate and is contiguous in that process's local array. joint_panels() does the same for
// one range seen through two distributions at once (the k columns of sub(A) and the k rows of
// sub(B), which may have different block sizes, sources and offsets), cutting at the block
// boundaries of both. Widths are greedy from the start of the range: a block is cut into
// max_width pieces from its beginning (or from `start` for the first, partial, block).
//
// Header-only and allocation-free: the iterators compute each panel in O(1).
// Pure index math: no MPI in here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <stdexcept>

#include "layout/block_cyclic.hpp"

namespace relay::layout {

/// Default panel width limit: none, only block boundaries cut.
inline constexpr int64_t unlimited_width = std::numeric_limits<int64_t>::max();

/// Where a panel lies along one distribution.
struct PanelPlace {
  int owner = 0;      ///< process coordinate holding the panel (-1 if replicated)
  int64_t local = 0;  ///< 0-based local index of the panel's first entry on `owner`
};

/// One panel of a range over one distribution: range offsets [offset, offset + width), that is
/// global indices [start + offset, start + offset + width).
struct Panel {
  int64_t offset = 0;  ///< 0-based offset of the panel from the start of the range
  int64_t width = 0;   ///< number of indices, >= 1
  int owner = 0;       ///< process coordinate holding the panel (-1 if replicated)
  int64_t local = 0;   ///< 0-based local index of the panel's first entry on `owner`
};

/// One panel of a range seen through two distributions (see joint_panels()).
struct JointPanel {
  int64_t offset = 0;  ///< 0-based offset of the panel from the start of the range
  int64_t width = 0;   ///< number of indices, >= 1
  PanelPlace a;        ///< where the panel lies in the first distribution
  PanelPlace b;        ///< where the panel lies in the second distribution
};

namespace detail {

// Indices from global index g to the end of its block.
inline int64_t room_in_block(const BlockCyclic& dim, int64_t g) { return block_end(dim, g) - g; }

inline PanelPlace place_of(const BlockCyclic& dim, int64_t g) {
  return PanelPlace{owner(dim, g), to_local(dim, g)};
}

inline void check_range(int64_t n, int64_t max_width) {
  if (n < 0) throw std::invalid_argument("panel range length must be >= 0");
  if (max_width < 1) throw std::invalid_argument("panel max_width must be >= 1");
}

// Forward iterator over the panels of a range; Range::at(offset) computes the panel that
// starts at `offset`, Range::size() is the range length.
template <class Range, class Value>
class PanelIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Value;
  using difference_type = std::ptrdiff_t;
  using pointer = const Value*;
  using reference = const Value&;

  PanelIterator() = default;
  PanelIterator(const Range* range, int64_t offset) : range_(range), offset_(offset) {
    if (offset_ < range_->size()) current_ = range_->at(offset_);
  }

  reference operator*() const { return current_; }
  pointer operator->() const { return &current_; }
  PanelIterator& operator++() {
    offset_ += current_.width;
    if (offset_ < range_->size()) current_ = range_->at(offset_);
    return *this;
  }
  PanelIterator operator++(int) {
    PanelIterator before = *this;
    ++*this;
    return before;
  }
  friend bool operator==(const PanelIterator& x, const PanelIterator& y) {
    return x.offset_ == y.offset_;
  }
  friend bool operator!=(const PanelIterator& x, const PanelIterator& y) { return !(x == y); }

 private:
  const Range* range_ = nullptr;
  int64_t offset_ = 0;
  Value current_{};
};

}  // namespace detail

/// The panels of the global range [start, start + n) of `dim` (see the file comment).
/// Keep the range object alive while iterating.
class PanelRange {
 public:
  using iterator = detail::PanelIterator<PanelRange, Panel>;

  /// Requires a valid `dim`, start >= 0, n >= 0 and max_width >= 1 (std::invalid_argument
  /// for a negative n or a max_width below 1).
  PanelRange(const BlockCyclic& dim, int64_t start, int64_t n, int64_t max_width)
      : dim_(dim), start_(start), n_(n), max_width_(max_width) {
    detail::check_range(n, max_width);
  }

  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, n_); }
  /// Length of the range (not the number of panels).
  int64_t size() const { return n_; }

  /// The panel that starts at range offset `offset` (0 <= offset < size()).
  Panel at(int64_t offset) const {
    const int64_t g = start_ + offset;
    const PanelPlace p = detail::place_of(dim_, g);
    const int64_t width = std::min({n_ - offset, max_width_, detail::room_in_block(dim_, g)});
    return Panel{offset, width, p.owner, p.local};
  }

 private:
  BlockCyclic dim_;
  int64_t start_;
  int64_t n_;
  int64_t max_width_;
};

/// The range [start_a, start_a + n) of `a` walked in step with [start_b, start_b + n) of `b`:
/// panel offsets and widths are shared, and each panel lies within one block of `a` and one
/// block of `b`.
class JointPanelRange {
 public:
  using iterator = detail::PanelIterator<JointPanelRange, JointPanel>;

  /// Same requirements as PanelRange, for both distributions.
  JointPanelRange(const BlockCyclic& a, int64_t start_a, const BlockCyclic& b, int64_t start_b,
                  int64_t n, int64_t max_width)
      : a_(a), b_(b), start_a_(start_a), start_b_(start_b), n_(n), max_width_(max_width) {
    detail::check_range(n, max_width);
  }

  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, n_); }
  /// Length of the range (not the number of panels).
  int64_t size() const { return n_; }

  /// The panel that starts at range offset `offset` (0 <= offset < size()).
  JointPanel at(int64_t offset) const {
    const int64_t ga = start_a_ + offset;
    const int64_t gb = start_b_ + offset;
    const int64_t width = std::min(
        {n_ - offset, max_width_, detail::room_in_block(a_, ga), detail::room_in_block(b_, gb)});
    return JointPanel{offset, width, detail::place_of(a_, ga), detail::place_of(b_, gb)};
  }

 private:
  BlockCyclic a_;
  BlockCyclic b_;
  int64_t start_a_;
  int64_t start_b_;
  int64_t n_;
  int64_t max_width_;
};

/// Panels of [start, start + n) of `dim`, at most `max_width` wide, within single blocks.
inline PanelRange panels(const BlockCyclic& dim, int64_t start, int64_t n,
                         int64_t max_width = unlimited_width) {
  return PanelRange(dim, start, n, max_width);
}

/// Panels of a range seen through two distributions, within single blocks of both.
inline JointPanelRange joint_panels(const BlockCyclic& a, int64_t start_a, const BlockCyclic& b,
                                    int64_t start_b, int64_t n,
                                    int64_t max_width = unlimited_width) {
  return JointPanelRange(a, start_a, b, start_b, n, max_width);
}

}  // namespace relay::layout
