// A throwaway self-signed certificate for 127.0.0.1, made with the openssl CLI
// (.ci/run installs it if missing), so TLS tests need no files in the repository.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { tempDir } from "../../testkit/server-process.js";

export interface TestCertificate {
  certPath: string;
  keyPath: string;
  /** The certificate itself, to trust it as a CA in Node clients. */
  pem: Buffer;
}

export function makeSelfSignedCert(): TestCertificate {
  const dir = tempDir("tailprobe-tls-");
  const certPath = path.join(dir, "cert.pem");
  const keyPath = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ],
    { stdio: "ignore" },
  );
  return { certPath, keyPath, pem: fs.readFileSync(certPath) };
}
