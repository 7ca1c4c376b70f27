// A trash plan's steps as the dialog lists them: what is done, and where (docs/trash.md).

import type { TrashStep } from "./types";

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
}

/** Each step as lines: what, and where. */
export function stepLines(step: TrashStep): { what: string; where: string }[] {
  switch (step.kind) {
    case "os_trash":
      return step.items.map((i) => ({
        what: "To the trash",
        where: i.dir ? `${i.path}/ (folder, ${i.files} files, ${size(i.bytes)})` : `${i.path} (${size(i.bytes)})`,
      }));
    case "agent":
      return [{ what: "Run", where: `${step.argv.join(" ")}  [${step.env.map(([k, v]) => `${k}=${v}`).join(" ")}]` }];
    case "archive":
      return [
        ...step.moves.map((m) => ({ what: "Move", where: `${m.from} → ${m.to}` })),
        ...(step.db ? [{ what: "Mark archived in", where: step.db }] : []),
      ];
    case "delete_rows":
      return [{ what: "Delete rows", where: `${step.db}: ${step.rows.map(([t, n]) => `${t} ${n}`).join(", ")}` }];
    case "cut":
      // One session's bytes out of a file that keeps the others (an Aider run out of its history).
      return [
        { what: "Cut out of", where: `${step.file}: bytes ${step.start}–${step.end} (${size(step.end - step.start)})` },
        ...(step.keep_as ? [{ what: "To the trash, as", where: step.keep_as }] : []),
      ];
  }
}
