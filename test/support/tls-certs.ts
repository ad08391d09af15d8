/*
 * Test certificates: a CA, a server certificate for 127.0.0.1/localhost and a client certificate signed by it,
 *   plus a second, unrelated CA — made by the openssl CLI in a temp dir, for the TLS fleet tests.
 * Owns: the files and their removal. Does not own: what a test does with them.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Paths of the made files (PEM). */
export interface TestCertificates {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** A CA that signed none of the above. */
  otherCaFile: string;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

/** Makes a CA, a server and a client certificate (EC P-256, valid 2 days) and an unrelated CA. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "seat-tls-"));
  const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  for (const ca of ["ca", "other-ca"])
    openssl(dir, [
      "req",
      "-x509",
      ...key,
      "-keyout",
      `${ca}.key`,
      "-out",
      `${ca}.crt`,
      "-days",
      "2",
      "-subj",
      `/CN=seat-test-${ca}`,
    ]);
  writeFileSync(join(dir, "server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  writeFileSync(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const [name, subject] of [
    ["server", "/CN=localhost"],
    ["client", "/CN=seat-test-client"],
  ] as const) {
    openssl(dir, ["req", ...key, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
    openssl(dir, [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      `${name}.crt`,
      "-days",
      "2",
      "-extfile",
      `${name}.ext`,
    ]);
  }
  return {
    dir,
    caFile: join(dir, "ca.crt"),
    serverCertFile: join(dir, "server.crt"),
    serverKeyFile: join(dir, "server.key"),
    clientCertFile: join(dir, "client.crt"),
    clientKeyFile: join(dir, "client.key"),
    otherCaFile: join(dir, "other-ca.crt"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
