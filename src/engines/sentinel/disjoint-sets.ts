/**
 * Union-find (disjoint sets) over the numbers 0..count-1, with path halving and union by size:
 * near-constant time per operation. Two arrays of small integers, whatever the count:
 * correlation keeps a million findings in it without an object per finding. Plain arrays, not
 * typed ones: a typed array's memory lies outside V8's heap, and V8 starts a full collection of
 * the whole heap whenever that outside memory has grown by 64 MB, however large the heap is
 * (correlate.ts, "Memory").
 */
export class DisjointSets {
  private readonly parent: number[];
  private readonly size: number[];

  constructor(count: number) {
    this.parent = new Array<number>(count);
    this.size = new Array<number>(count).fill(1);
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
