// Which addresses in kb's answer the paste/ page makes links (imported by docs/paste/paste.js; no DOM here,
// so tests/test_paste_links.py runs it under Node).
//
// kb's answer quotes the pasted log (the error line, the user's frame), so text after the published site's
// address may come from the paste: "javascript:alert(1)", "//elsewhere.example/" or "../../" would resolve
// to a script, another site or a page outside this one. A link is made only to a page of this site.

// The address on this site for `rest` (what follows the published site's address), or null when `rest`
// resolves anywhere but under `root` (this site's root, a URL) with the same scheme and origin.
export function siteLink(rest, root) {
  const base = new URL(root);
  let url;
  try {
    url = new URL(rest, base);
  } catch {
    return null;
  }
  if (url.protocol !== base.protocol || url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    return null;
  }
  if (url.username || url.password) return null;
  return url.href;
}

const PRINTED = /^\S*/;

// The page kb's answer points to: the address on kb's own "more:" line (a line that begins with "more: ", or
// the next line when the address did not fit), never one quoted from the paste (those lines are indented
// and begin with what kb says, such as "  line 4: "). Null when the answer names no page of the site.
export function answerPage(text, siteUrl, root) {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i].startsWith("more: ")) continue;
    const parts = lines[i].split("  ·  ");
    const address = parts.length > 1 ? parts[parts.length - 1] : (lines[i + 1] ?? "").trim();
    return address.startsWith(siteUrl) ? siteLink(address.slice(siteUrl.length).match(PRINTED)[0], root) : null;
  }
  return null;
}
