// Unit tests for backend choice: option, then environment hints, then availability.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseBackend } from "./detect.js";
import { resolveHerdrSocketPath } from "./herdr-wire.js";
import { isSeatError } from "../errors.js";

const none = { herdrReachable: false, tmuxInstalled: false };

test("an explicit choice wins over every environment hint", () => {
  assert.equal(chooseBackend({ ...none, prefer: "tmux", env: { HERDR_SOCKET_PATH: "/s", TMUX: "x" } }).name, "tmux");
  assert.equal(chooseBackend({ ...none, prefer: "herdr", env: { TMUX: "x" } }).name, "herdr");
});

test("Herdr hints beat TMUX, and TMUX beats availability", () => {
  assert.equal(chooseBackend({ ...none, env: { HERDR_SOCKET_PATH: "/s", TMUX: "x" } }).name, "herdr");
  assert.equal(chooseBackend({ ...none, env: { HERDR_ENV: "1" } }).name, "herdr");
  assert.equal(
    chooseBackend({ herdrReachable: true, tmuxInstalled: true, env: { TMUX: "/tmp/tmux-1/default,1,0" } }).name,
    "tmux",
  );
});

test("falls back to a reachable Herdr, then an installed tmux, then MUX_UNAVAILABLE", () => {
  assert.equal(chooseBackend({ herdrReachable: true, tmuxInstalled: true, env: {} }).name, "herdr");
  assert.equal(chooseBackend({ herdrReachable: false, tmuxInstalled: true, env: {} }).name, "tmux");
  assert.throws(
    () => chooseBackend({ ...none, env: {} }),
    (e) => isSeatError(e, "MUX_UNAVAILABLE"),
  );
});

test("resolves the Herdr socket as herdr does", () => {
  assert.equal(resolveHerdrSocketPath({ env: { HOME: "/h" } }), "/h/.config/herdr/herdr.sock");
  assert.equal(resolveHerdrSocketPath({ env: { HOME: "/h", XDG_CONFIG_HOME: "/x" } }), "/x/herdr/herdr.sock");
  assert.equal(
    resolveHerdrSocketPath({ env: { HOME: "/h", HERDR_SESSION: "work" } }),
    "/h/.config/herdr/sessions/work/herdr.sock",
  );
  assert.equal(
    resolveHerdrSocketPath({ env: { HOME: "/h", HERDR_SESSION: "default" } }),
    "/h/.config/herdr/herdr.sock",
  );
  assert.equal(
    resolveHerdrSocketPath({ env: { HOME: "/h", HERDR_SOCKET_PATH: "/p.sock", HERDR_SESSION: "work" } }),
    "/p.sock",
  );
  assert.equal(
    resolveHerdrSocketPath({ session: "cli", env: { HOME: "/h", HERDR_SOCKET_PATH: "/p.sock" } }),
    "/h/.config/herdr/sessions/cli/herdr.sock",
  );
});
