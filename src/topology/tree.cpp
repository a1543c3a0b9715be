#include "topology/tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace relay::topology {

std::string_view to_string(TreeKind kind) {
  switch (kind) {
    case TreeKind::linear:
      return "linear";
    case TreeKind::chain:
      return "chain";
    case TreeKind::kary:
      return "kary";
    case TreeKind::binomial:
      return "binomial";
  }
  return "unknown";
}

int ceil_pow2(int size) {
  int p = 1;
  while (p < size) p <<= 1;
  return p;
}

int ceil_log2(int size) {
  int k = 0;
  while ((1 << k) < size) ++k;
  return k;
}

std::vector<int> by_virtual_rank(std::vector<int> ranks, int root, int size) {
  std::sort(ranks.begin(), ranks.end(), [&](int a, int b) {
    return virtual_rank(a, root, size) < virtual_rank(b, root, size);
  });
  return ranks;
}

int binomial_subtree_size(int vrank, int size) {
  if (vrank == 0) return size;
  const int lowbit = vrank & -vrank;
  return std::min(lowbit, size - vrank);
}

namespace {

// Chains: the size-1 non-root vranks are cut into `chains` contiguous runs whose lengths
// differ by at most one (longer runs first); each run hangs off the root.
void chain_node(int size, int vrank, int chains, int& parent, std::vector<int>& children) {
  const int others = size - 1;
  chains = std::max(1, std::min(chains, others));
  const int base = others / chains;
  const int extra = others % chains;
  auto run_start = [&](int c) { return 1 + c * base + std::min(c, extra); };
  if (vrank == 0) {
    for (int c = 0; c < chains; ++c) children.push_back(run_start(c));
    return;
  }
  int c = 0;
  while (c + 1 < chains && run_start(c + 1) <= vrank) ++c;
  const int end = run_start(c + 1);  // one past the last vrank of this run
  parent = vrank == run_start(c) ? 0 : vrank - 1;
  if (vrank + 1 < end) children.push_back(vrank + 1);
}

}  // namespace

TreeNode tree_node(TreeKind kind, int size, int root, int rank, int fanout) {
  if (size < 1 || root < 0 || root >= size || rank < 0 || rank >= size || fanout < 1) {
    throw std::invalid_argument("tree_node: bad size/root/rank/fanout");
  }
  const int v = virtual_rank(rank, root, size);
  int parent = -1;
  std::vector<int> children;
  switch (kind) {
    case TreeKind::linear:
      if (v == 0) {
        for (int c = 1; c < size; ++c) children.push_back(c);
      } else {
        parent = 0;
      }
      break;
    case TreeKind::chain:
      if (size > 1) chain_node(size, v, fanout, parent, children);
      break;
    case TreeKind::kary: {
      if (v > 0) parent = (v - 1) / fanout;
      for (long long c = static_cast<long long>(v) * fanout + 1;
           c <= static_cast<long long>(v) * fanout + fanout && c < size; ++c) {
        children.push_back(static_cast<int>(c));
      }
      break;
    }
    case TreeKind::binomial: {
      if (v > 0) parent = v & (v - 1);
      const int limit = v == 0 ? ceil_pow2(size) : (v & -v);
      for (int mask = limit >> 1; mask > 0; mask >>= 1) {
        if (v + mask < size) children.push_back(v + mask);
      }
      // Truncation at `size` can make a far child's subtree smaller than a near one's: serve
      // the largest subtree first (it has the longest way to go), farthest first on ties.
      std::stable_sort(children.begin(), children.end(), [size](int a, int b) {
        return binomial_subtree_size(a, size) > binomial_subtree_size(b, size);
      });
      break;
    }
  }
  TreeNode node;
  node.parent = parent < 0 ? -1 : real_rank(parent, root, size);
  node.children.reserve(children.size());
  for (int c : children) node.children.push_back(real_rank(c, root, size));
  return node;
}

RingNode ring_node(int size, int root, int rank) {
  const int v = virtual_rank(rank, root, size);
  return RingNode{real_rank((v - 1 + size) % size, root, size),
                  real_rank((v + 1) % size, root, size)};
}

}  // namespace relay::topology
