// The paste/ page's worker (started by docs/paste/paste.js): Pyodide and kb, off the page's thread, so
// the page stays responsive (a paste, the progress) while the runtime starts.
//
// Everything comes from this site: runtime/ holds Pyodide (the npm package, vendored at build time) and
// the wheel built from the checkout, which carries the knowledge (kb/site/paste_page.py puts them there).
// The wheel is unpacked into Pyodide's in-memory file system, and each paste is written to a file there
// and read by `kb diagnose FILE --width 80` itself (kb.cli.main): the CLI's text, secrets masked by the
// engine's redaction.
//
// Messages to the page: {type: "step", value, name, text}, {type: "ready", siteUrl}, {type: "failed",
// error, unavailable}, {type: "answer", id, code, text}. From the page: {type: "diagnose", id, text}.

const RUNTIME = new URL("runtime/", import.meta.url);
const PASTED = "pasted text";  // the file kb diagnose reads, in Python's working folder; named in its messages
const WIDTH = "80";  // the width `kb diagnose` wraps to in a file or a pipe

// Run once kb is importable: one call per paste, stdout and stderr captured.
const GLUE = `
import io, sys
from kb import site_url
from kb.cli import main as _kb_main

def kb_paste(path):
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = _kb_main(["diagnose", path, "--width", "${WIDTH}"])
    finally:
        sys.stdout, sys.stderr = saved
    return [code, out.getvalue(), err.getvalue()]
`;

class Unavailable extends Error {}

const step = (value, name, text) => postMessage({ type: "step", value, name, text });

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  const listed = await fetch(new URL("runtime.json", RUNTIME));
  if (!listed.ok) throw new Unavailable("This build of the site carries no Python runtime (it was built without npm).");
  const manifest = await listed.json();
  const megabytes = Object.values(manifest.files).reduce((a, b) => a + b, 0) / 1e6;
  step(0, "listed", `Downloading and starting the Python runtime and kb (${megabytes.toFixed(1)} MB)…`);
  const wheel = fetchBytes(new URL(manifest.wheel, RUNTIME));  // downloads while Python starts
  const { loadPyodide } = await import(new URL("pyodide.mjs", RUNTIME).href);
  step(1, "imported", null);
  const pyodide = await loadPyodide({ indexURL: RUNTIME.href, stdout: () => {}, stderr: () => {} });
  step(2, "python", "Unpacking kb and its knowledge…");
  const purelib = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
  pyodide.unpackArchive(await wheel, "wheel", { extractDir: purelib });
  step(3, "unpacked", "Loading kb's knowledge…");
  pyodide.runPython(GLUE);
  const run = pyodide.globals.get("kb_paste");
  const diagnose = text => {
    pyodide.FS.writeFile(PASTED, new TextEncoder().encode(text));
    const result = run(PASTED);
    const [code, out, err] = result.toJs();
    result.destroy();
    return { code, text: out || err };
  };
  diagnose("ValueError: warm-up\n");  // imports the engine and builds the knowledge index once, now
  return { diagnose, siteUrl: pyodide.runPython("site_url()") };
}

const ready = start();
ready.then(
  engine => postMessage({ type: "ready", siteUrl: engine.siteUrl }),
  error => postMessage({ type: "failed", error: String(error), unavailable: error instanceof Unavailable }),
);

onmessage = async ({ data }) => {
  if (data.type !== "diagnose") return;
  let engine;
  try {
    engine = await ready;
  } catch {
    return;  // the page was told
  }
  try {
    postMessage({ type: "answer", id: data.id, ...engine.diagnose(data.text) });
  } catch (error) {
    postMessage({ type: "answer", id: data.id, code: null, text: "", error: String(error) });
  }
};
