// docs/alerts.md says what the code does: its webhook example has exactly
// the payload's fields, its rules-file snippet parses into the rule it
// describes, and every alerting flag is in README's command-line block.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { webhookPayload } from "../../server/alerts/notify/payloads.js";
import { parseRulesFile } from "../../server/alerts/rules-file.js";
import { ALERT_FLAGS } from "../../server/cli/alert-flags.js";
import { SERVE_FLAGS } from "../../server/cli/options.js";

const DOC = fs.readFileSync("docs/alerts.md", "utf8");
const block = (lang: string, after: string) => {
  const at = DOC.indexOf(after);
  expect(at, after).toBeGreaterThanOrEqual(0);
  return new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(DOC.slice(at))![1]!;
};

describe("docs/alerts.md", () => {
  it("shows the webhook payload with exactly its fields", () => {
    const example = JSON.parse(block("json", "### Webhook")) as Record<string, unknown> & { alerts: object[] };
    const ours = webhookPayload(
      {
        type: "firing",
        fingerprint: "0",
        alert: { labels: {}, annotations: {}, startsAtMs: 0, endsAtMs: null, generatorUrl: "" },
      },
      "",
    );
    expect(Object.keys(example).sort()).toEqual(Object.keys(ours).sort());
    expect(Object.keys(example.alerts[0]!).sort()).toEqual(Object.keys(ours.alerts[0]!).sort());
  });

  it("has a rules-file snippet that parses into the rule it describes", () => {
    const r = parseRulesFile(block("yaml", "## Rules file"), "docs");
    if (!r.ok) throw new Error(r.error);
    expect(r.value.rules[0]).toMatchObject({
      name: "WebSocketTailSlow",
      intervalMs: 30_000,
      series: { methods: ["ws"], targets: ["B"], client: "all" },
      windowMs: 900_000,
      threshold: { op: "above", value: 250, clear: 200 },
      minSamples: 500,
      forMs: 300_000,
    });
    const builtins = parseRulesFile(block("yaml", "The `builtins` section"), "docs");
    expect(builtins).toMatchObject({
      ok: true,
      value: { builtins: { tailLatencyHigh: false, noReportsAfterMs: 1_800_000 } },
    });
  });

  it("every alerting flag is a serve flag and in README's command-line block", () => {
    const readme = fs.readFileSync("README.md", "utf8");
    const cli = /## Command line\n\n```\n([\s\S]*?)```/.exec(readme)![1]!;
    for (const flag of Object.keys(ALERT_FLAGS)) {
      expect(Object.keys(SERVE_FLAGS)).toContain(flag);
      expect(cli).toContain(`--${flag} `);
      expect(DOC).toContain(`--${flag}`);
    }
  });
});
