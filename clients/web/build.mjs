// npm run bundle: src/ → ../../service/web/static/, which `tricktable serve --web-port` serves
// at /. The output is committed (the quick start needs only Python), so it must not vary from
// one machine to another: no timestamps, no absolute paths, no source maps.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";

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
  logLevel: "warning",
});
for (const file of ["index.html", "style.css"]) {
  copyFileSync(`src/${file}`, `${out}/${file}`);
}
