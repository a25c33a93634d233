// The paste/ page (docs/paste/index.md): the box, the button, the progress and the answer. kb's own
// diagnose engine runs in a worker (docs/paste/worker.js) through Pyodide, from files this site serves.
//
// For tests and benchmarks the page keeps window.kbPaste: its stage ("loading", "ready", "failed",
// "unavailable"), when each step of loading ended (steps) and when the runtime was ready (readyAt),
// the number of answers shown, the last one ({code: kb's exit code, text}), and when each answer was
// asked for and shown. Times are the page's performance.now(): milliseconds since the navigation started.

import { answerPage, siteLink } from "./links.js";

const SITE_ROOT = new URL("../", import.meta.url);  // this script is paste/paste.js

const $ = id => document.getElementById(id);
const input = $("kb-paste-input");
const button = $("kb-paste-run");
const progress = $("kb-paste-progress");
const status = $("kb-paste-status");
const answer = $("kb-paste-answer");
const pageLink = $("kb-paste-link");

const state = window.kbPaste = { stage: "loading", answers: 0, asked: [], shown: [], error: null, steps: {} };

const began = performance.now();
let loading = "Downloading and starting the Python runtime…";
let waiting = false;  // a press is waiting for the runtime
const ticker = setInterval(() => {  // a clock while the runtime downloads and compiles
  if (state.stage !== "loading") return clearInterval(ticker);
  const seconds = Math.round((performance.now() - began) / 1000);
  status.textContent = `${waiting ? "Waiting for the Python runtime. " : ""}${loading} ${seconds} s`;
}, 1000);

const worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
const pending = new Map();  // answers asked of the worker, by id
let nextId = 0;
let settle;
const ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
ready.catch(() => {});  // shown in the status line

function fail(text, stage) {
  state.stage = stage;
  state.error = text;
  status.textContent = stage === "unavailable" ? text
    : `The Python runtime did not load (${text}). kb diagnose on the command line gives the same answer.`;
  settle.reject(new Error(text));
}

worker.onmessage = ({ data }) => {
  if (data.type === "step") {
    progress.value = data.value;
    state.steps[data.name] = performance.now();
    if (data.text) loading = data.text;
    if (data.value >= 2) status.textContent = data.text;  // Python holds the worker from here: no clock
  } else if (data.type === "ready") {
    progress.value = progress.max;
    state.stage = "ready";
    state.readyAt = state.steps.ready = performance.now();
    status.textContent = `Ready (${((state.readyAt - began) / 1000).toFixed(1)} s). Paste an error and press Diagnose.`;
    settle.resolve(data.siteUrl);
  } else if (data.type === "failed") {
    fail(data.error, data.unavailable ? "unavailable" : "failed");
  } else if (data.type === "answer") {
    pending.get(data.id)?.(data);
    pending.delete(data.id);
  }
};
worker.onerror = event => fail(event.message || "the worker could not start", "failed");

function diagnose(text) {
  const id = nextId++;
  return new Promise(resolve => {
    pending.set(id, resolve);
    worker.postMessage({ type: "diagnose", id, text });
  });
}

// The answer as text, every address of the published site made a link to the same page of this site (only a
// page of this site: the answer quotes the paste, see links.js), and a button to the page kb's answer names.
function show(text, siteUrl) {
  answer.replaceChildren();
  const escaped = siteUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  let last = 0;
  for (const match of text.matchAll(new RegExp(`${escaped}(\\S*)`, "g"))) {
    const href = siteLink(match[1], SITE_ROOT);
    if (href === null) continue;  // stays text
    answer.append(text.slice(last, match.index));
    const a = document.createElement("a");
    a.href = href;
    a.textContent = match[0];
    answer.append(a);
    last = match.index + match[0].length;
  }
  answer.append(text.slice(last));
  answer.hidden = false;
  const page = answerPage(text, siteUrl, SITE_ROOT);
  pageLink.replaceChildren();
  pageLink.hidden = page === null;
  if (page !== null) {
    const a = document.createElement("a");
    a.href = page;
    a.textContent = `Read the page of ${text.split("\n", 1)[0].split("  ", 1)[0]}`;
    a.className = "md-button";
    pageLink.append(a);
  }
  (page === null ? answer : pageLink).scrollIntoView({ block: "nearest" });
}

async function onDiagnose() {
  const text = input.value;
  if (!text.trim()) {
    status.textContent = "Paste an error first.";
    return;
  }
  state.asked.push(performance.now());
  waiting = state.stage === "loading";
  let siteUrl;
  try {
    siteUrl = await ready;
  } catch {
    return;
  } finally {
    waiting = false;
  }
  button.disabled = true;
  status.textContent = "Diagnosing…";
  try {
    const result = await diagnose(text);
    if (result.error) throw new Error(result.error);
    state.last = { code: result.code, text: result.text };
    show(result.text, siteUrl);
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
