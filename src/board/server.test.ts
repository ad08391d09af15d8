import { test } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boardBase, startBoard } from "./server.js";

/** A raw GET (fetch may not set Host). */
function get(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

test("the board answers only under its secret base path and only to its own Host; the path does not reveal the token", async () => {
  const home = mkdtempSync(join(tmpdir(), "seat-board-unit-"));
  const board = await startBoard({ listing: { home } });
  try {
    const url = new URL(board.url);
    assert.equal(url.pathname, `/${boardBase(board.token)}/`);
    assert.ok(!url.pathname.includes(board.token));
    const auth = { authorization: `Bearer ${board.token}` };
    assert.equal(await get(board.url, auth), 200);
    assert.equal(await get(`${url.origin}/`, auth), 404, "outside the base path, even with the token");
    assert.equal(await get(`${url.origin}/approvals/x/allow`, auth), 404);
    assert.equal(await get(board.url, { ...auth, host: `rebound.example:${url.port}` }), 421, "a DNS-rebound name");
    assert.equal(await get(board.url, { ...auth, host: `localhost:${url.port}` }), 200);
  } finally {
    await board.close();
    rmSync(home, { recursive: true, force: true });
  }
});
