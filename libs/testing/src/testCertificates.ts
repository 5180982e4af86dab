import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export interface TestCertificates {
  /** PEM of the self-signed CA that signed the server's certificate. */
  caFile: string;
  certFile: string;
  keyFile: string;
}

/**
 * A private CA and a server certificate for 127.0.0.1 and localhost, made at test time with
 * openssl in `dir` (keys never live in the repository). Valid for a day.
 */
export function makeTestCertificates(dir: string): TestCertificates {
  const file = (name: string) => join(dir, name);
  const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  openssl([
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.crt"),
    "-days",
    "1",
    "-subj",
    "/CN=platform-test-ca",
  ]);
  openssl([
    "req",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=127.0.0.1",
  ]);
  writeFileSync(file("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  openssl([
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.crt"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.crt"),
    "-days",
    "1",
    "-extfile",
    file("server.ext"),
  ]);
  return { caFile: file("ca.crt"), certFile: file("server.crt"), keyFile: file("server.key") };
}
