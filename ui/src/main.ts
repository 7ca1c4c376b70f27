import { mount } from "svelte";
import App from "./App.svelte";
import { applyTheme } from "./lib/theme";
import "./app.css";

// Until the settings are read, the OS decides (no flash of the wrong theme for most users).
applyTheme("system");

mount(App, { target: document.getElementById("app")! });
