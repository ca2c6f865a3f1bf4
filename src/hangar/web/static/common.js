// Shared helpers of the hangar web UI: API calls with the session's CSRF token, dialogs.
"use strict";
const hangar = (() => {
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";

  function toLogin() {
    const next = location.pathname + location.search;
    location.href = "/login?next=" + encodeURIComponent(next);
  }

  // GET without a body; POST with one (or `method`, e.g. "PATCH").
  async function api(path, body, method = "POST") {
    const init = body === undefined
      ? { headers: { Accept: "application/json" } }
      : { method, headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" }, body: JSON.stringify(body) };
    const res = await fetch(path, init);
    if (res.status === 401) { toLogin(); throw new Error("not logged in"); }
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      const err = (data && data.error) || {};
      const failure = new Error(err.message || ("HTTP " + res.status));
      failure.code = err.code || "";
      failure.details = err.details || {};
      throw failure;
    }
    return data;
  }

  async function html(path) {
    const res = await fetch(path, { headers: { Accept: "text/html" } });
    if (res.redirected && new URL(res.url).pathname === "/login") { toLogin(); throw new Error("not logged in"); }
    const text = await res.text();
    if (!res.ok) {
      let message = "HTTP " + res.status;
      try { message = JSON.parse(text).error.message; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    return text;
  }

  // A modal confirmation (and optional text input) on a native <dialog>: keyboard-usable.
  function ask(text, { input = null, okLabel = "OK" } = {}) {
    const dialog = document.getElementById("confirm-dialog");
    if (!dialog) return Promise.resolve(window.confirm(text) ? (input ?? true) : null);
    document.getElementById("confirm-text").textContent = text;
    document.getElementById("confirm-ok").textContent = okLabel;
    const row = document.getElementById("confirm-input-row");
    const field = document.getElementById("confirm-input");
    row.hidden = input === null;
    field.value = input ?? "";
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => {
        if (dialog.returnValue !== "ok") return resolve(null);
        resolve(input === null ? true : field.value.trim());
      }, { once: true });
      dialog.returnValue = "";
      dialog.showModal();
      if (input !== null) field.select();
    });
  }

  function status(text) {
    const line = document.getElementById("status-line");
    if (line) line.textContent = text;
  }

  // The hub's live events. Events are hints: when the stream reconnects, or the hub says it
  // may have missed some (`hub.resync`), `catchUp` refetches what the page shows; with
  // `firstOpen` also at the first connection (for a page rendered by the server, whose
  // content may have changed before the stream was up).
  function events(catchUp, { firstOpen = false } = {}) {
    const source = new EventSource("/api/events");
    let opened = false;
    source.addEventListener("open", () => { if (opened || firstOpen) catchUp(); opened = true; });
    source.addEventListener("hub.resync", () => catchUp());
    return source;
  }

  return { api, html, ask, status, csrf, events };
})();
