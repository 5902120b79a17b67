/**
 * Seeded random streams. Every component draws from its own stream, derived from the venue
 * seed and the component's name (`ap/<serial>`, `client/<id>`, ...), so adding an AP or a
 * client never shifts the numbers any other component sees.
 * Alea (seedrandom) is used for speed; it has a 2^116 period and passes BigCrush.
 */
import seedrandom from 'seedrandom';

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Standard normal N(0,1) (Box-Muller, one value per call for reproducibility). */
  normal(): number;
  /** Exponential with the given mean. */
  exp(mean: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** The stream of one named component under a venue seed. */
export function rngStream(seed: number | string, component: string): Rng {
  return new AleaRng(seedrandom.alea(`${seed}\u0000${component}`));
}

/**
 * Methods on a prototype rather than seven closures per stream: a venue holds one stream per AP
 * and per station, and under tsx every closure also carries its own name property store.
 */
class AleaRng implements Rng {
  constructor(private readonly prng: () => number) {}
  next(): number {
    return this.prng();
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.prng() * (hi - lo + 1));
  }
  uniform(lo: number, hi: number): number {
    return lo + this.prng() * (hi - lo);
  }
  normal(): number {
    const u = 1 - this.prng(); // (0, 1]: log(0) never happens
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.prng());
  }
  exp(mean: number): number {
    return -mean * Math.log(1 - this.prng());
  }
  chance(p: number): boolean {
    return this.prng() < p;
  }
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.prng() * items.length)]!;
  }
}

/**
 * A stateless 32-bit hash of integers and a seed (murmur3 finaliser mixing). Used where a value
 * must depend only on its coordinates, never on call order: spatial shadowing fields, MAC suffixes.
 */
export function hash32(seed: number, ...values: number[]): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const v of values) {
    let k = Math.imul(v | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) >>> 0;
  }
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A number seed from any seed value, for `hash32`. */
export function seedNumber(seed: number | string): number {
  const s = String(seed);
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
