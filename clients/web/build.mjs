// npm run bundle: src/ (and the @tricktable/client package it is built on) → ../../service/web/static/, which `tricktable serve --web-port` serves
// at /. The output is committed (the quick start needs only Python), so it must not vary from
// one machine to another: no timestamps, no absolute paths, no source maps.
//
// index.html names each file with its content's hash (app.js?v=<hash>): the server lets a
// browser keep such an address for a year (service/web/app.py), and a new build is a new one.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";

const out = "../../service/web/static";
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: `${out}/app.js`,
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  legalComments: "none",
  // @tricktable/client is a link to ../typescript (a file: dependency): its modules find the
  // protocol runtime this package installs (node_modules here), so the bundle holds one copy
  // of it, whether or not ../typescript has a node_modules of its own.
  preserveSymlinks: true,
  logLevel: "warning",
});
copyFileSync("src/style.css", `${out}/style.css`);
let page = readFileSync("src/index.html", "utf8");
for (const file of ["app.js", "style.css"]) {
  const hash = createHash("sha256").update(readFileSync(`${out}/${file}`)).digest("hex").slice(0, 16);
  page = page.replace(`"${file}"`, `"${file}?v=${hash}"`);
}
writeFileSync(`${out}/index.html`, page);
