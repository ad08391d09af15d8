import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { laneMarker, normalizeModelSelection, parseGrokModels, toProviderModelIds } from "./models.js";

const MOCK_OUTPUT = `Model 'mock' is using its own API key.

Default model: mock

Available models:
  - grok-4.6
  - grok-4.5
  * mock (default)
`;

test("parses the live BYOK output: auth line, default model and bullets", () => {
  assert.deepEqual(parseGrokModels(MOCK_OUTPUT), {
    auth: "model-key",
    authLine: "Model 'mock' is using its own API key.",
    defaultModel: "mock",
    models: [
      { id: "grok-4.6", isDefault: false },
      { id: "grok-4.5", isDefault: false },
      { id: "mock", isDefault: true },
    ],
  });
});

test("recognises the four authentication lines", () => {
  const body = "\n\nDefault model: grok-4.5\n\nAvailable models:\n  * grok-4.5 (default)\n  - grok-composer-2.5-fast\n";
  const cases: [string, string][] = [
    ["You are using XAI_API_KEY.", "api-key"],
    ["Model 'mock' is using its own API key.", "model-key"],
    ["You are logged in with grok.com.", "logged-in"],
    ["You are not authenticated.", "not-authenticated"],
  ];
  for (const [line, auth] of cases) {
    const r = parseGrokModels(line + body);
    assert.equal(r.auth, auth, line);
    assert.equal(r.authLine, line);
    assert.deepEqual(
      r.models.map((m) => m.id),
      ["grok-4.5", "grok-composer-2.5-fast"],
    );
    assert.equal(r.reason, undefined);
  }
});

test("garbage yields an empty list and a reason", () => {
  for (const s of ["", "Error: connection refused", "Available models:\nnot a bullet", '{"models":[]}']) {
    const r = parseGrokModels(s);
    assert.deepEqual(r.models, []);
    assert.equal(r.auth, "unknown");
    assert.ok(r.reason);
  }
});

test("bullets outside the Available models list are ignored", () => {
  const r = parseGrokModels("Some notes:\n  - not-a-model\n\nAvailable models:\n  - grok-4.5\n");
  assert.deepEqual(r.models, [{ id: "grok-4.5", isDefault: false }]);
  assert.match(r.reason ?? "", /authentication/);
});

test("parseGrokModels never throws on arbitrary strings", () => {
  fc.assert(fc.property(fc.string(), (s) => Array.isArray(parseGrokModels(s).models)));
  fc.assert(
    fc.property(
      fc.array(
        fc.constantFrom(
          "Available models:",
          "  - a",
          "  * b (default)",
          "Default model: x",
          "You are not authenticated.",
          "",
          "junk",
        ),
      ),
      (lines) => Array.isArray(parseGrokModels(lines.join("\n")).models),
    ),
  );
});

test("model ids are exposed under the grok-cli provider", () => {
  assert.deepEqual(toProviderModelIds([{ id: "grok-4.5", isDefault: true }]), ["grok-cli/grok-4.5"]);
  assert.deepEqual(toProviderModelIds(["mock"]), ["grok-cli/mock"]);
});

test("normalises provider-prefixed selections and omits -m for the default", () => {
  assert.equal(normalizeModelSelection("grok-cli/grok-4.5"), "grok-4.5");
  assert.equal(normalizeModelSelection("grok/grok-4.5"), "grok-4.5");
  assert.equal(normalizeModelSelection("grok-4.5"), "grok-4.5");
  assert.equal(normalizeModelSelection("grok/default"), undefined);
  assert.equal(normalizeModelSelection(""), undefined);
  assert.equal(normalizeModelSelection(undefined), undefined);
});

test("lane markers are grok/<model> and never undefined/undefined", () => {
  assert.equal(laneMarker("grok-4.5"), "grok/grok-4.5");
  assert.equal(laneMarker("grok-cli/mock"), "grok/mock");
  assert.equal(laneMarker(undefined), "grok/default");
  assert.equal(laneMarker(""), "grok/default");
  fc.assert(
    fc.property(fc.option(fc.string(), { nil: undefined }), (m) => {
      const marker = laneMarker(m);
      return marker.startsWith("grok/") && !marker.includes("undefined/undefined");
    }),
  );
});
