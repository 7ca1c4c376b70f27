// Directories named so they can be told apart: each by the fewest trailing folders no other
// directory shown ends with (`bob/projects/demo`, `alice/projects/demo`, `xss`), the full path
// in a tooltip. Cutting every path to its last folders (or at both ends) showed three
// different directories as the same `…/projects/demo`. Pure functions, unit-tested.

const split = (path: string): string[] => path.split(/[\\/]+/).filter(Boolean);

/** Each path's shortest trailing run of folders that no other path of `paths` ends with; the
 * whole path when none is that short (one path a suffix of another: `/a/demo`, `/x/a/demo`). */
export function distinctSuffixes(paths: Iterable<string>): Map<string, string> {
  const unique = [...new Set(paths)];
  const parts = new Map(unique.map((p) => [p, split(p)]));
  // How many paths end with each suffix, for every length.
  const ends = new Map<string, number>();
  for (const segs of parts.values()) {
    for (let n = 1; n <= segs.length; n++) {
      const key = segs.slice(-n).join("/");
      ends.set(key, (ends.get(key) ?? 0) + 1);
    }
  }
  const out = new Map<string, string>();
  for (const [path, segs] of parts) {
    let label = path;
    for (let n = 1; n < segs.length; n++) {
      const key = segs.slice(-n).join("/");
      if (ends.get(key) === 1) { label = key; break; }
    }
    out.set(path, segs.length ? label : path);
  }
  return out;
}
