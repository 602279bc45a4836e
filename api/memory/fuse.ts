// Pure: reciprocal rank fusion of the full-text and vector rankings, and cosine similarity.

/** RRF constant from Cormack et al. (2009): damps the weight of the very top ranks. */
const RRF_K = 60;

export interface Ranked {
  id: string;
  score: number;
}

/** Fuses rankings (each best first) into one, best first; an id in several rankings adds up. */
export function reciprocalRankFusion(rankings: readonly (readonly string[])[]): Ranked[] {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, rank) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
    });
  }
  return [...scores]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
