// Tree and ring invariants for every shape, size 1..64 and every root.
#include <gtest/gtest.h>

#include <queue>
#include <set>
#include <vector>

#include "topology/tree.hpp"

using relay::topology::TreeKind;
using relay::topology::TreeNode;

namespace {

struct Shape {
  TreeKind kind;
  int fanout;
};

// Depth of every rank (edges from the root), or -1 if unreachable.
std::vector<int> depths(const std::vector<TreeNode>& nodes, int root) {
  std::vector<int> depth(nodes.size(), -1);
  std::queue<int> q;
  depth[root] = 0;
  q.push(root);
  while (!q.empty()) {
    const int r = q.front();
    q.pop();
    for (int c : nodes[r].children) {
      if (depth[c] != -1) return {};  // reached twice: not a tree
      depth[c] = depth[r] + 1;
      q.push(c);
    }
  }
  return depth;
}

}  // namespace

TEST(Topology, TreesAreSpanningAndSymmetric) {
  const std::vector<Shape> shapes = {
      {TreeKind::linear, 1},  {TreeKind::chain, 1},   {TreeKind::chain, 2}, {TreeKind::chain, 3},
      {TreeKind::chain, 100}, {TreeKind::kary, 1},    {TreeKind::kary, 2},  {TreeKind::kary, 3},
      {TreeKind::kary, 7},    {TreeKind::binomial, 1}};
  for (const Shape& shape : shapes) {
    for (int size = 1; size <= 64; ++size) {
      for (int root = 0; root < size; ++root) {
        SCOPED_TRACE(testing::Message() << to_string(shape.kind) << " fanout " << shape.fanout
                                        << " size " << size << " root " << root);
        std::vector<TreeNode> nodes;
        for (int r = 0; r < size; ++r) {
          nodes.push_back(relay::topology::tree_node(shape.kind, size, root, r, shape.fanout));
        }
        ASSERT_EQ(nodes[root].parent, -1);
        for (int r = 0; r < size; ++r) {
          if (r != root) {
            ASSERT_GE(nodes[r].parent, 0);
            ASSERT_LT(nodes[r].parent, size);
            const auto& siblings = nodes[nodes[r].parent].children;
            ASSERT_EQ(std::count(siblings.begin(), siblings.end(), r), 1)
                << "rank " << r << " is not a child of its parent";
          }
          std::set<int> unique(nodes[r].children.begin(), nodes[r].children.end());
          ASSERT_EQ(unique.size(), nodes[r].children.size());
          for (int c : nodes[r].children) ASSERT_EQ(nodes[c].parent, r);
        }
        const auto depth = depths(nodes, root);
        ASSERT_EQ(depth.size(), static_cast<std::size_t>(size)) << "not a tree";
        int max_depth = 0;
        for (int d : depth) {
          ASSERT_GE(d, 0) << "a rank is unreachable";
          max_depth = std::max(max_depth, d);
        }
        if (shape.kind == TreeKind::binomial) {
          EXPECT_LE(max_depth, relay::topology::ceil_log2(size));
        }
        if (shape.kind == TreeKind::chain && shape.fanout == 1) {
          EXPECT_EQ(max_depth, size - 1);
        }
        if (shape.kind == TreeKind::linear) {
          EXPECT_EQ(max_depth, size > 1 ? 1 : 0);
        }
        if (shape.kind == TreeKind::chain) {
          const int chains = std::min(shape.fanout, size - 1);
          if (size > 1) {
            EXPECT_EQ(nodes[root].children.size(), static_cast<std::size_t>(chains));
          }
          if (size > 1) {
            EXPECT_EQ(max_depth, (size - 1 + chains - 1) / chains);
          }
        }
      }
    }
  }
}

TEST(Topology, BinomialSubtreesAreContiguousVrankRanges) {
  for (int size = 1; size <= 64; ++size) {
    for (int root = 0; root < size; ++root) {
      std::vector<TreeNode> nodes;
      for (int r = 0; r < size; ++r) {
        nodes.push_back(relay::topology::tree_node(TreeKind::binomial, size, root, r));
      }
      for (int r = 0; r < size; ++r) {
        // Collect the subtree of r by walking children.
        std::set<int> sub;
        std::vector<int> stack = {r};
        while (!stack.empty()) {
          const int x = stack.back();
          stack.pop_back();
          sub.insert(relay::topology::virtual_rank(x, root, size));
          for (int c : nodes[x].children) stack.push_back(c);
        }
        const int v = relay::topology::virtual_rank(r, root, size);
        const int n = relay::topology::binomial_subtree_size(v, size);
        ASSERT_EQ(static_cast<int>(sub.size()), n) << "size " << size << " vrank " << v;
        ASSERT_EQ(*sub.begin(), v);
        ASSERT_EQ(*sub.rbegin(), v + n - 1);
        // Children in decreasing subtree size: the largest subtree gets data first.
        for (std::size_t i = 1; i < nodes[r].children.size(); ++i) {
          const int a = relay::topology::virtual_rank(nodes[r].children[i - 1], root, size);
          const int b = relay::topology::virtual_rank(nodes[r].children[i], root, size);
          ASSERT_GE(relay::topology::binomial_subtree_size(a, size),
                    relay::topology::binomial_subtree_size(b, size));
        }
      }
    }
  }
}

TEST(Topology, RingNeighboursFormOneCycle) {
  for (int size = 1; size <= 64; ++size) {
    for (int root = 0; root < size; ++root) {
      int r = root;
      for (int step = 0; step < size; ++step) {
        const auto node = relay::topology::ring_node(size, root, r);
        ASSERT_EQ(relay::topology::ring_node(size, root, node.right).left, r);
        r = node.right;
        if (step + 1 < size) {
          ASSERT_NE(r, root) << "cycle shorter than the ring";
        }
      }
      ASSERT_EQ(r, root);
    }
  }
}

TEST(Topology, RejectsBadArguments) {
  EXPECT_THROW(relay::topology::tree_node(TreeKind::binomial, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(relay::topology::tree_node(TreeKind::binomial, 4, 4, 0), std::invalid_argument);
  EXPECT_THROW(relay::topology::tree_node(TreeKind::kary, 4, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(relay::topology::tree_node(TreeKind::chain, 4, 0, -1), std::invalid_argument);
}
