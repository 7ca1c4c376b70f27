import { describe, expect, it } from "vitest";
import { distinctSuffixes } from "./paths";

describe("distinct directory names", () => {
  it("tells apart directories that end alike by the folders that differ", () => {
    const names = distinctSuffixes(["/home/bob/projects/demo", "/home/alice/projects/demo", "/home/carol/projects/demo", "/home/eve/xss"]);
    expect([...names.values()]).toEqual(["bob/projects/demo", "alice/projects/demo", "carol/projects/demo", "xss"]);
  });

  it("names every directory differently (the three demos were all “…/projects/demo”)", () => {
    const paths = ["/a/x/app", "/b/x/app", "/b/y/app", "/srv/app/src", "/home/me/src", "/home/me/app"];
    const names = [...distinctSuffixes(paths).values()];
    expect(new Set(names).size).toBe(paths.length);
    paths.forEach((p, i) => expect(p.endsWith(names[i])).toBe(true));
  });

  it("keeps the whole path when another path ends with all of it", () => {
    const names = distinctSuffixes(["/a/demo", "/x/a/demo"]);
    expect(names.get("/a/demo")).toBe("/a/demo");
    expect(names.get("/x/a/demo")).toBe("/x/a/demo");
  });

  it("a lone directory is its last folder; the root and Windows paths too", () => {
    expect(distinctSuffixes(["/home/me/work/app"]).get("/home/me/work/app")).toBe("app");
    expect(distinctSuffixes(["/"]).get("/")).toBe("/");
    expect(distinctSuffixes(["C:\\Users\\me\\app", "C:\\Users\\you\\app"]).get("C:\\Users\\me\\app")).toBe("me/app");
  });

  it("a path listed twice is one directory", () => {
    expect(distinctSuffixes(["/w/app", "/w/app"]).get("/w/app")).toBe("app");
  });
});
