/**
 * Union-find (disjoint sets) over the numbers 0..count-1, with path halving and union by size:
 * near-constant time per operation. Two typed arrays, whatever the count: correlation keeps a
 * million findings in it without an object per finding.
 */
export class DisjointSets {
  private readonly parent: Int32Array;
  private readonly size: Int32Array;

  constructor(count: number) {
    this.parent = new Int32Array(count);
    this.size = new Int32Array(count).fill(1);
    for (let i = 0; i < count; i++) {
      this.parent[i] = i;
    }
  }

  /** The representative of the set holding `index`. */
  find(index: number): number {
    let i = index;
    let parent = this.parent[i] ?? i;
    while (parent !== i) {
      const grandparent = this.parent[parent] ?? parent;
      this.parent[i] = grandparent;
      i = grandparent;
      parent = this.parent[i] ?? i;
    }
    return i;
  }

  /** Joins the sets of `a` and `b`. */
  union(a: number, b: number): void {
    let rootA = this.find(a);
    let rootB = this.find(b);
    if (rootA === rootB) {
      return;
    }
    if ((this.size[rootA] ?? 0) < (this.size[rootB] ?? 0)) {
      [rootA, rootB] = [rootB, rootA];
    }
    this.parent[rootB] = rootA;
    this.size[rootA] = (this.size[rootA] ?? 0) + (this.size[rootB] ?? 0);
  }
}
