// The paste/ page (docs/paste/index.md): kb's own diagnose engine, run in the page by Pyodide.
//
// Every file comes from this site: runtime/ holds Pyodide (the npm package, vendored at build time)
// and the wheel built from the checkout, which carries the knowledge (kb/site/paste_page.py puts
// them there). The wheel is unpacked into Pyodide's in-memory file system and the page runs
// `kb diagnose FILE --width 80` itself (kb.cli.main), so the answer is the CLI's text, secrets
// masked by the engine's redaction. Nothing pasted leaves the browser.
//
// For tests and benchmarks the page keeps window.kbPaste: its stage ("loading", "ready", "failed",
// "unavailable"), when each step of loading ended and when the runtime was ready, the number of answers shown, the last one ({code: kb's exit code, text}), and when
// each answer was asked for and shown (performance.now(): milliseconds since the navigation started).

const RUNTIME = new URL("runtime/", import.meta.url);
const SITE_ROOT = new URL("../", import.meta.url);  // this script is paste/paste.js
const PASTED = "pasted text";  // the file kb diagnose reads, in Python's working folder; named in its messages
const WIDTH = "80";  // the width `kb diagnose` wraps to in a file or a pipe

// Run in the page's Python once kb is importable: one call per paste, stdout and stderr captured.
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

const $ = id => document.getElementById(id);
const input = $("kb-paste-input");
const button = $("kb-paste-run");
const progress = $("kb-paste-progress");
const status = $("kb-paste-status");
const answer = $("kb-paste-answer");
const pageLink = $("kb-paste-link");

const state = window.kbPaste = { stage: "loading", answers: 0, asked: [], shown: [], error: null, steps: {} };

function step(value, text, name) {
  progress.value = value;
  status.textContent = text;
  if (name) state.steps[name] = performance.now();
}

class Unavailable extends Error {}

// Python runs on the page's thread: a status set just before it holds the thread is painted first.
const paint = () => new Promise(resolve => setTimeout(resolve, 0));

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

async function start() {
  const began = performance.now();
  let LOADING = "Downloading and starting the Python runtime…";
  const ticker = setInterval(() => {  // a clock while the runtime downloads and compiles (no byte counts)
    if (state.stage === "loading" && progress.value < 2) {
      const seconds = Math.round((performance.now() - began) / 1000);
      step(progress.value, `${LOADING} ${seconds} s`);
    }
  }, 1000);
  try {
    step(0, LOADING);
    const listed = await fetch(new URL("runtime.json", RUNTIME));
    if (!listed.ok) throw new Unavailable("This build of the site carries no Python runtime (it was built without npm).");
    const manifest = await listed.json();
    const megabytes = Object.values(manifest.files).reduce((a, b) => a + b, 0) / 1e6;
    LOADING = `Downloading and starting the Python runtime and kb (${megabytes.toFixed(1)} MB)…`;
    const wheel = fetchBytes(new URL(manifest.wheel, RUNTIME));  // downloads while Python starts
    const { loadPyodide } = await import(new URL("pyodide.mjs", RUNTIME).href);
    step(1, LOADING, "imported");
    const pyodide = await loadPyodide({ indexURL: RUNTIME.href, stdout: () => {}, stderr: () => {} });
    step(2, "Unpacking kb and its knowledge…", "python");
    await paint();
    const purelib = pyodide.runPython("import sysconfig; sysconfig.get_path('purelib')");
    pyodide.unpackArchive(await wheel, "wheel", { extractDir: purelib });
    step(3, "Loading kb's knowledge…", "unpacked");
    await paint();
    pyodide.runPython(GLUE);
    const run = pyodide.globals.get("kb_paste");
    const siteUrl = pyodide.runPython("site_url()");
    const diagnose = text => {
      pyodide.FS.writeFile(PASTED, new TextEncoder().encode(text));
      const result = run(PASTED);
      const [code, out, err] = result.toJs();
      result.destroy();
      return { code, text: out || err };
    };
    diagnose("ValueError: warm-up\n");  // imports the engine and builds the knowledge index once, now
    step(4, `Ready (${((performance.now() - began) / 1000).toFixed(1)} s). Paste an error and press Diagnose.`);
    state.stage = "ready";
    state.readyAt = state.steps.ready = performance.now();
    return { diagnose, siteUrl };
  } catch (error) {
    state.stage = error instanceof Unavailable ? "unavailable" : "failed";
    state.error = String(error);
    status.textContent = error instanceof Unavailable ? error.message
      : `The Python runtime did not load (${error}). kb diagnose on the command line gives the same answer.`;
    throw error;
  } finally {
    clearInterval(ticker);
  }
}

const ready = start();
ready.catch(() => {});  // shown in the status line

// The answer as text, every address of the published site made a link to the same page of this site.
function show(text, siteUrl) {
  answer.replaceChildren();
  const escaped = siteUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`${escaped}(\\S*)`, "g");
  let last = 0;
  let first = null;
  for (const match of text.matchAll(pattern)) {
    answer.append(text.slice(last, match.index));
    const a = document.createElement("a");
    a.href = new URL(match[1], SITE_ROOT).href;
    a.textContent = match[0];
    answer.append(a);
    first ??= a.href;
    last = match.index + match[0].length;
  }
  answer.append(text.slice(last));
  answer.hidden = false;
  const name = text.split("\n", 1)[0].split("  ", 1)[0];
  pageLink.hidden = first === null;
  pageLink.replaceChildren();
  if (first !== null) {
    const a = document.createElement("a");
    a.href = first;
    a.textContent = `Read the page of ${name}`;
    a.className = "md-button";
    pageLink.append(a);
  }
  (first === null ? answer : pageLink).scrollIntoView({ block: "nearest" });
}

async function onDiagnose() {
  const text = input.value;
  if (!text.trim()) {
    status.textContent = "Paste an error first.";
    return;
  }
  state.asked.push(performance.now());
  if (state.stage === "loading") status.textContent = "Waiting for the Python runtime…";
  let engine;
  try {
    engine = await ready;
  } catch {
    return;
  }
  button.disabled = true;
  status.textContent = "Diagnosing…";
  await paint();
  try {
    const result = engine.diagnose(text);
    state.last = result;
    show(result.text, engine.siteUrl);
    status.textContent = result.code === 0 ? "Diagnosed." : result.code === 1 ? "No known case or family matches."
      : "kb could not use this input.";
  } catch (error) {
    status.textContent = `kb failed on this input (${error}).`;
  } finally {
    button.disabled = false;
    state.answers += 1;
    state.shown.push(performance.now());
  }
}

button.addEventListener("click", onDiagnose);
input.addEventListener("keydown", event => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) onDiagnose();
});
