// Keyboard navigation of the runtime view and the narrow-window drawer.
//
// j/k: next/previous message; ] / [: next/previous turn; g/G: first/last message; ?: the
// shortcut sheet. Keys are ignored while typing in a field, with a modifier, or in a dialog.
// The moved-to message gets focus (a visible ring) and scrolls to the top of the transcript.
//
// The drawer: below 761 px the task list slides in over the transcript; while it is closed it
// is `inert`, so Tab never walks through links that cannot be seen.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const layout = $("layout"), sidebar = $("sidebar"), toggle = $("sidebar-toggle");
  const scroller = $("transcript"), messagesEl = $("messages");
  const narrow = window.matchMedia("(max-width: 760px)");

  // ---- the drawer -----------------------------------------------------------------------
  function syncDrawer() {
    const open = layout.classList.contains("sidebar-open");
    sidebar.inert = narrow.matches && !open;
    toggle.setAttribute("aria-expanded", String(!narrow.matches || open));
  }
  new MutationObserver(syncDrawer).observe(layout, { attributes: true, attributeFilter: ["class"] });
  narrow.addEventListener("change", syncDrawer);
  syncDrawer();

  // ---- messages and turns ---------------------------------------------------------------
  const messages = () => [...messagesEl.querySelectorAll(":scope > article.msg")];
  // A turn starts at a message whose turn id differs from the one before; messages without a
  // turn id (agents that record none) start a turn where the user spoke.
  function turnStarts(all) {
    return all.filter((m, i) => {
      const prev = all[i - 1];
      if (!prev) return true;
      const id = m.dataset.turnId, before = prev.dataset.turnId;
      return id || before ? id !== before : m.classList.contains("msg-user");
    });
  }
  // The message being read: the focused one, else the first whose top is in view.
  function current(all) {
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest("article.msg");
    if (focused && all.includes(focused)) return focused;
    const top = scroller.getBoundingClientRect().top;
    return all.find((m) => m.getBoundingClientRect().bottom > top + 4) || null;
  }
  function go(target) {
    if (!target) return;
    target.tabIndex = -1;
    target.scrollIntoView({ block: "start" });
    target.focus({ preventScroll: true });
  }
  function step(list, delta) {
    const all = messages();
    if (!all.length) return;
    const at = current(all);
    if (!at) return go(delta > 0 ? list[0] : list[list.length - 1]);
    const pos = all.indexOf(at);
    const focusedNow = document.activeElement === at;
    if (delta > 0) go(list.find((m) => all.indexOf(m) > pos) || (focusedNow ? null : at));
    else {
      const before = list.filter((m) => all.indexOf(m) < pos);
      go(before.length ? before[before.length - 1] : focusedNow ? null : at);
    }
  }
  function edge(last) {
    const all = messages();
    if (!all.length) return;
    scroller.scrollTop = last ? scroller.scrollHeight : 0;
    const target = all[last ? all.length - 1 : 0];
    target.tabIndex = -1;
    target.focus({ preventScroll: true });
    if (last) target.scrollIntoView({ block: "end" });
  }

  // ---- the shortcut sheet ---------------------------------------------------------------
  const SHORTCUTS = [
    ["j / k", "next / previous message"], ["] / [", "next / previous turn"],
    ["g / G", "first / last message"], ["/", "search"], ["↓ ↑ or j k", "move between search results"],
    ["Enter", "open the result"], ["Esc", "close the results or this sheet"], ["?", "this sheet"],
  ];
  let sheet = null;
  function showSheet() {
    if (!sheet) {
      sheet = document.createElement("dialog");
      sheet.id = "keys-dialog";
      sheet.setAttribute("aria-labelledby", "keys-title");
      const title = Object.assign(document.createElement("h2"), { id: "keys-title", textContent: "Keyboard shortcuts" });
      const list = document.createElement("dl");
      list.className = "shortcuts";
      for (const [keys, what] of SHORTCUTS) {
        const dt = document.createElement("dt");
        for (const [i, k] of keys.split(" ").entries()) {
          if (i) dt.append(" ");
          if (k === "/" && keys !== "/" || k === "or") dt.append(k);
          else dt.append(Object.assign(document.createElement("kbd"), { textContent: k }));
        }
        list.append(dt, Object.assign(document.createElement("dd"), { textContent: what }));
      }
      const form = document.createElement("form");
      form.method = "dialog";
      form.append(Object.assign(document.createElement("button"), { textContent: "Close", className: "primary" }));
      sheet.append(title, list, form);
      document.body.append(sheet);
    }
    if (!sheet.open) sheet.showModal();
  }

  $("keys-button")?.addEventListener("click", showSheet);

  // ---- dispatch -------------------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const t = event.target;
    if (t.closest && t.closest("input, textarea, select, [contenteditable=''], [contenteditable=true], dialog, #search-results")) return;
    if (document.querySelector("dialog[open]")) return;
    const actions = {
      j: () => step(messages(), 1), k: () => step(messages(), -1),
      "]": () => step(turnStarts(messages()), 1), "[": () => step(turnStarts(messages()), -1),
      g: () => edge(false), G: () => edge(true), "?": showSheet,
    };
    if (event.key === "Escape" && narrow.matches && layout.classList.contains("sidebar-open")) {
      layout.classList.remove("sidebar-open");
      toggle.focus();
      return;
    }
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  });
})();
