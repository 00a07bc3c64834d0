/** mulberry32: a small seeded PRNG, so a failing randomized run can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The list in a random order (Fisher–Yates) drawn from `random`, so a seeded run replays its order. */
export function shuffled<T>(list: readonly T[], random: () => number): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const displaced = out.splice(i, 1, ...out.slice(j, j + 1));
    out.splice(j, 1, ...displaced);
  }
  return out;
}
