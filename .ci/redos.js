// Run the recheck ReDoS checker over JSON lines `{"source": ..., "flags": ...}` on stdin and
// print one JSON line per pattern: its status and, when vulnerable, the complexity and an
// attack string's length. Called by .ci/redos.py, which turns Python patterns into these.
"use strict";
const path = require("path");
const { checkSync } = require(path.join(__dirname, "node", "node_modules", "recheck"));

const input = require("fs").readFileSync(0, "utf8");
for (const line of input.split("\n")) {
  if (!line.trim()) continue;
  const { source, flags } = JSON.parse(line);
  let out;
  try {
    const r = checkSync(source, flags, { timeout: 20000 });
    out = { status: r.status, checker: r.checker };
    if (r.status === "vulnerable") {
      out.complexity = r.complexity.type;
      out.degree = r.complexity.degree || null;
      out.attack = r.attack ? r.attack.pattern : null;
      out.attack_string = r.attack ? r.attack.string : null;
    } else if (r.status === "unknown" || r.status === "error") {
      out.error = r.error ? (r.error.kind + (r.error.message ? ": " + r.error.message : "")) : null;
    }
  } catch (e) {
    out = { status: "error", error: String(e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
