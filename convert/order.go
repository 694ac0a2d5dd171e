package convert

import (
	"container/heap"

	"github.com/unrmod/unrmod/iostore/zen"
)

// graph is the export graph FPackageStoreOptimizer sorts into load order:
// two nodes per export, Create (2i) and Serialize (2i+1), and edges from a
// node to the nodes that must wait for it.
type graph struct {
	public []bool  // per export
	edges  [][]int // per node: the nodes that depend on it
	in     []int   // per node: the number of edges into it
}

func newGraph(public []bool) *graph {
	n := 2 * len(public)
	return &graph{public: public, edges: make([][]int, n), in: make([]int, n)}
}

func node(export int, cmd uint32) int { return 2*export + int(cmd) }

// add records that node to waits for node from.
func (g *graph) add(from, to int) {
	g.edges[from] = append(g.edges[from], to)
	g.in[to]++
}

// loadOrder sorts the nodes topologically, taking among the nodes that
// wait for nothing first a public export's, then a Create before a
// Serialize, then the lower export index (SortExportGraphNodesInLoadOrder's
// NodeSorter). ok is false when the edges form a loop.
func (g *graph) loadOrder() (order []zen.BundleEntry, ok bool) {
	return g.sort(&nodeQueue{public: g.public})
}

// loadOrderByIndex sorts the nodes topologically as the 4.26/4.27 packer
// does (FExportGraph::ComputeLoadOrder's NodeSorter): among the nodes that
// wait for nothing, the lower export index first, then Create before
// Serialize.
func (g *graph) loadOrderByIndex() (order []zen.BundleEntry, ok bool) {
	return g.sort(&nodeQueue{public: g.public, byIndex: true})
}

func (g *graph) sort(q *nodeQueue) (order []zen.BundleEntry, ok bool) {
	in := append([]int(nil), g.in...)
	for v := range in {
		if in[v] == 0 {
			heap.Push(q, v)
		}
	}
	order = make([]zen.BundleEntry, 0, len(in))
	for q.Len() > 0 {
		v := heap.Pop(q).(int)
		order = append(order, zen.BundleEntry{Export: uint32(v / 2), Command: uint32(v % 2)})
		for _, w := range g.edges[v] {
			if in[w]--; in[w] == 0 {
				heap.Push(q, w)
			}
		}
	}
	return order, len(order) == len(in)
}

// nodeQueue is a priority queue of graph nodes in NodeSorter's order.
type nodeQueue struct {
	nodes   []int
	public  []bool
	byIndex bool // 4.26/4.27: by export index, then command
}

func (q *nodeQueue) Len() int { return len(q.nodes) }
func (q *nodeQueue) Less(i, j int) bool {
	a, b := q.nodes[i], q.nodes[j]
	if q.byIndex {
		return a < b // node numbers are 2·export + command
	}
	if pa, pb := q.public[a/2], q.public[b/2]; pa != pb {
		return pa
	}
	if a%2 != b%2 {
		return a%2 < b%2
	}
	return a/2 < b/2
}
func (q *nodeQueue) Swap(i, j int) { q.nodes[i], q.nodes[j] = q.nodes[j], q.nodes[i] }
func (q *nodeQueue) Push(x any)    { q.nodes = append(q.nodes, x.(int)) }
func (q *nodeQueue) Pop() any {
	v := q.nodes[len(q.nodes)-1]
	q.nodes = q.nodes[:len(q.nodes)-1]
	return v
}

func (q *nodeQueue) push(v int) { heap.Push(q, v) }
func (q *nodeQueue) pop() int   { return heap.Pop(q).(int) }
