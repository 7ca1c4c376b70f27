import { mount } from "svelte";
import App from "./App.svelte";
import { listSessions } from "./lib/api";
import { badgeStyles } from "./lib/badges";
import { applyTheme } from "./lib/theme";
import "./app.css";

// Where a start's time goes (tests/e2e/perf.py reads these marks): the bundle loaded and run.
performance.mark("script-start");

// The list is asked for before anything else, so the backend lists while the app mounts; the
// app renders it when it comes, waiting for nothing else (settings, status and the rest follow).
const firstList = listSessions();
performance.mark("list-asked");

// Until the settings are read, the OS decides (no flash of the wrong theme for most users).
applyTheme("system");

const badges = document.createElement("style");
badges.textContent = badgeStyles();
document.head.append(badges);

mount(App, { target: document.getElementById("app")!, props: { firstList } });
performance.mark("mounted");
