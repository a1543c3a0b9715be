// Trees and rings over the ranks of a communicator, rooted at any rank.
//
// Every shape is defined on virtual ranks, vrank = (rank - root + size) % size, so the root is
// vrank 0 and one definition serves every root. Functions return real ranks.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace relay::topology {

/// Shapes of broadcast/reduce trees.
enum class TreeKind {
  linear,   ///< flat: the root is the parent of every other rank (depth 1)
  chain,    ///< `fanout` chains hanging off the root (fanout 1: depth size-1)
  kary,     ///< complete k-ary tree in vrank order, k = fanout (binary: k = 2)
  binomial  ///< binomial tree: vrank v's parent is v with its lowest set bit cleared
};

std::string_view to_string(TreeKind kind);

/// One rank's place in a tree: its parent (-1 at the root) and its children, in the order
/// data should be sent to them (largest subtree first).
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
};

inline int virtual_rank(int rank, int root, int size) { return (rank - root + size) % size; }
inline int real_rank(int vrank, int root, int size) { return (vrank + root) % size; }

/// The node of `rank` in a tree of `kind` over `size` ranks rooted at `root`. `fanout` is the
/// number of chains for `chain` and k for `kary`; it is ignored otherwise and must be >= 1.
TreeNode tree_node(TreeKind kind, int size, int root, int rank, int fanout = 1);

/// `ranks` (real ranks) sorted by ascending virtual rank: the order to receive from a binomial
/// node's children so that the smallest subtree, which finishes first, comes first.
std::vector<int> by_virtual_rank(std::vector<int> ranks, int root, int size);

/// Number of vranks in the binomial subtree rooted at vrank `vrank` (the root's is `size`).
/// The subtree of vrank v is the contiguous vrank range [v, v + subtree_size).
int binomial_subtree_size(int vrank, int size);

/// Smallest power of two >= size (1 for size <= 1).
int ceil_pow2(int size);
/// ceil(log2(size)), 0 for size <= 1.
int ceil_log2(int size);

/// Ring neighbours in vrank order: left sends to us, we send to right.
struct RingNode {
  int left = 0;
  int right = 0;
};
RingNode ring_node(int size, int root, int rank);

}  // namespace relay::topology
