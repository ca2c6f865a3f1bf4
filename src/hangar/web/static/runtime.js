// Runtime work view: open tasks, page upward, fill missing ranges, search, live updates.
//
// Loaded history is tracked in `ranges` (sorted, inclusive [from, to] message indexes): the
// authoritative record of what is loaded (RW-093). A gap marker sits where adjacent ranges do
// not touch (RW-089, RW-095); it requests its (clipped, RW-096) range once when it first
// scrolls into view (RW-090) and afterwards only on click (RW-091).
"use strict";
(() => {
  const PAGE = 50;
  const $ = (id) => document.getElementById(id);
  const pane = $("pane"), messagesEl = $("messages"), scroller = $("transcript");
  const state = {
    deviceId: pane.dataset.deviceId || "", localTaskId: pane.dataset.localTaskId || "",
    ranges: [], total: 0, hasMore: false, cursor: "", loading: false, generation: 0, opening: null,
    autoTried: new Set(), archived: false,
  };

  // ---- ranges ---------------------------------------------------------------------------
  function addRange(from, to) {
    if (to < from) return;
    const all = [...state.ranges, [from, to]].sort((a, b) => a[0] - b[0]);
    const merged = [];
    for (const r of all) {
      const last = merged[merged.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else merged.push([r[0], r[1]]);
    }
    state.ranges = merged;
  }
  const covered = (i) => state.ranges.some(([a, b]) => i >= a && i <= b);

  function placeMessages(fragmentHtml) {
    const holder = document.createElement("div");
    holder.innerHTML = fragmentHtml;
    const pageEl = holder.querySelector(".tpage");
    const incoming = [...pageEl.querySelectorAll(":scope > article.msg")];
    // A first look at a file the device has not read yet: its last turns, whose indexes are
    // not final. They stand alone (no ids, no ranges) until the exact page replaces them.
    if (pageEl.dataset.settled === "false") {
      for (const msg of incoming) {
        msg.removeAttribute("id");
        msg.classList.add("provisional");
        msg.querySelector(":scope > .msg-head > .index")?.remove(); // its number is not known yet
      }
      messagesEl.replaceChildren(...incoming);
    } else {
      messagesEl.querySelectorAll(":scope > article.msg.provisional").forEach((el) => el.remove());
    }
    for (const msg of pageEl.dataset.settled === "false" ? [] : incoming) {
      const index = Number(msg.dataset.index);
      const existing = document.getElementById("msg-" + index);
      if (existing) { existing.replaceWith(msg); continue; }
      const after = [...messagesEl.querySelectorAll(":scope > article.msg")]
        .find((el) => Number(el.dataset.index) > index);
      messagesEl.insertBefore(msg, after || null);
    }
    // Every page carries the transcript's current list; a page without one means the latest
    // turn has none, so an older turn's strip must not linger (CL-011, CL-064).
    const facts = pageEl.querySelector("template.facts-template");
    if (facts) $("task-facts").replaceChildren(facts.content.cloneNode(true));
    const template = pageEl.querySelector("template.checklist-template");
    $("checklist-slot").replaceChildren(...(template ? [template.content.cloneNode(true)] : []));
    return pageEl.dataset;
  }

  function renderGaps() {
    messagesEl.querySelectorAll(":scope > .gap").forEach((g) => g.remove());
    for (let k = 1; k < state.ranges.length; k++) {
      const from = state.ranges[k - 1][1] + 1, to = state.ranges[k][0] - 1;
      if (to < from) continue;
      const gap = document.createElement("button");
      gap.type = "button";
      gap.className = "gap";
      gap.dataset.from = from; gap.dataset.to = to;
      const key = from + "-" + to;
      const failed = state.autoTried.has(key);
      gap.classList.toggle("failed", failed);
      gap.textContent = `${to - from + 1} message${to === from ? "" : "s"} not loaded (#${from}–#${to})` +
        (failed ? " · click to retry" : "");
      const next = document.getElementById("msg-" + state.ranges[k][0]);
      messagesEl.insertBefore(gap, next);
      gapObserver.observe(gap);
    }
  }

  async function fillGap(gap, automatic) {
    const from = Number(gap.dataset.from), to = Number(gap.dataset.to), key = from + "-" + to;
    if (automatic && state.autoTried.has(key)) return;
    state.autoTried.add(key);
    gap.disabled = true;
    gap.textContent = "Loading…";
    const limit = Math.min(500, to - from + 1);
    try {
      await loadPage({ beforeIndex: to + 1, limit }, false);
    } catch (err) { hangar.status(err.message); }
    renderGaps();
  }

  const gapObserver = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) fillGap(e.target, true);
  }, { root: scroller });

  // ---- loading --------------------------------------------------------------------------
  function transcriptUrl(extra) {
    const q = new URLSearchParams({ deviceId: state.deviceId, localTaskId: state.localTaskId, limit: String(extra.limit || PAGE) });
    if (extra.beforeCursor) q.set("beforeCursor", extra.beforeCursor);
    if (extra.beforeIndex !== undefined) q.set("beforeIndex", String(extra.beforeIndex));
    if (extra.aroundClientId) q.set("aroundClientUserMessageId", extra.aroundClientId);
    if (extra.refresh) q.set("refresh", "true");
    if (extra.glance) q.set("glance", "true");
    return "/ui/transcript?" + q;
  }

  // Loads one page; `older` marks the page above the oldest loaded one (its cursor continues).
  async function loadPage(params, older) {
    const generation = state.generation;
    const text = await hangar.html(transcriptUrl(params));
    if (generation !== state.generation) return null; // another task was opened meanwhile
    const oldest = state.ranges.length ? state.ranges[0][0] : Infinity;
    const data = placeMessages(text);
    if (data.settled === "false") return data; // shown, but nothing is loaded yet
    const first = Number(data.first), last = Number(data.last);
    const hasMore = data.hasMore === "true";
    state.total = Number(data.total);
    const end = params.aroundClientId ? last : params.beforeIndex !== undefined ? params.beforeIndex - 1 : older ? oldest - 1 : state.total - 1;
    const start = hasMore ? (last >= first ? first : end + 1) : 0;
    addRange(start, Math.max(end, last));
    if (start <= oldest) { state.hasMore = hasMore; state.cursor = data.beforeCursor; }
    if (data.title) $("task-title").textContent = data.title;
    if (data.archived) setArchived(data.archived === "true");
    announceTask(data.workspacePath, data.projectPath);
    document.dispatchEvent(new CustomEvent("hangar:transcript-page", { detail: { ...data, deviceId: state.deviceId, localTaskId: state.localTaskId } }));
    return data;
  }

  // The workspace tools beside a task (terminal, files) follow the open task (RW-248).
  function announceTask(workspacePath, projectPath) {
    const detail = { deviceId: state.deviceId, localTaskId: state.localTaskId, workspacePath: workspacePath || "", projectPath: projectPath || "" };
    document.dispatchEvent(new CustomEvent("hangar:task", { detail }));
  }

  async function loadOlder() {
    if (state.loading || !state.hasMore || !state.cursor) return;
    state.loading = true;
    const before = scroller.scrollHeight, top = scroller.scrollTop;
    try {
      await loadPage({ beforeCursor: state.cursor }, true);
      scroller.scrollTop = scroller.scrollHeight - before + top; // keep the view still
      renderGaps();
    } catch (err) { hangar.status(err.message); }
    state.loading = false;
  }

  // A user message's navigation id is its clientUserMessageId where it has one (RW-229): the
  // agent recorded it, so a link keeps finding the message when indexes shift (a transcript
  // parsed anew, an older page loaded); `#msg-N` stays the link of every other message.
  function userMessage(clientId) {
    const all = [...messagesEl.querySelectorAll(`:scope > article.msg-user[data-client-id="${CSS.escape(clientId)}"]`)];
    return all[all.length - 1] || null; // a retried turn repeats the id: the latest answered
  }
  async function showUserMessage(clientId) {
    if (!userMessage(clientId)) {
      try {
        await loadPage({ aroundClientId: clientId, limit: PAGE }, false);
      } catch (err) { hangar.status(err.message); }
      renderGaps();
    }
    return highlight(userMessage(clientId));
  }

  function highlight(target) {
    const el = typeof target === "number" ? document.getElementById("msg-" + target) : target;
    if (!el) return false;
    el.scrollIntoView({ block: "center" });
    el.classList.add("highlight");
    setTimeout(() => el.classList.remove("highlight"), 2500);
    return true;
  }

  function openTask(deviceId, localTaskId, options = {}) {
    state.opening = openTaskNow(deviceId, localTaskId, options);
    return state.opening;
  }

  async function openTaskNow(deviceId, localTaskId, { push = true, targetIndex = null, targetClientId = null } = {}) {
    state.generation += 1;
    Object.assign(state, { deviceId, localTaskId, ranges: [], total: 0, hasMore: false, cursor: "", autoTried: new Set() });
    if (push) history.pushState({ deviceId, localTaskId }, "", `/runtime-tasks?deviceId=${encodeURIComponent(deviceId)}&localTaskId=${encodeURIComponent(localTaskId)}`);
    $("placeholder")?.remove();
    messagesEl.replaceChildren();
    $("checklist-slot").replaceChildren();
    $("task-facts").replaceChildren();
    $("task-head").hidden = false;
    setArchived(false);
    markCurrent();
    showWatch();
    const link = sidebarLink(deviceId, localTaskId);
    $("task-title").textContent = link ? link.dataset.title : "";
    for (const format of ["md", "html"]) {
      const query = new URLSearchParams({ deviceId, localTaskId, format });
      $("export-" + format).href = "/api/runtime-work/export?" + query;
    }
    announceTask(link?.dataset.workspacePath, link?.dataset.projectPath);
    $("layout").classList.remove("sidebar-open");
    document.dispatchEvent(new CustomEvent("hangar:task-opened", { detail: { deviceId, localTaskId } }));
    hangar.status("Loading…");
    try {
      // The first look may be the file's last turns read from its end (a long session the
      // device has not read yet): shown at once, then replaced by the exact page.
      const look = await loadPage({ tail: true, glance: targetIndex === null && targetClientId === null }, false);
      if (look && look.settled === "false") {
        scroller.scrollTop = scroller.scrollHeight;
        await loadPage({ tail: true }, false);
      }
      if (targetIndex !== null && !covered(targetIndex)) {
        await loadPage({ beforeIndex: Math.min(state.total, targetIndex + 10), limit: PAGE }, false);
      }
      renderGaps();
      hangar.status("");
      const shown = targetClientId !== null ? await showUserMessage(targetClientId) : targetIndex !== null && highlight(targetIndex);
      if (!shown) scroller.scrollTop = scroller.scrollHeight;
    } catch (err) { hangar.status(err.message); }
  }

  async function refreshOpenTask() {
    if (!state.localTaskId) return;
    const atBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 40;
    try {
      await loadPage({ tail: true, refresh: true }, false);
      renderGaps();
      if (atBottom) scroller.scrollTop = scroller.scrollHeight;
    } catch (err) { hangar.status(err.message); }
  }

  // ---- images of user messages ----------------------------------------------------------
  // An attachment image that fails to load (an upload since removed, a preview the browser
  // cannot decode) becomes its file name: never a broken image, never a path (RW-220).
  // `error` does not bubble, so it is caught on the way down.
  messagesEl.addEventListener("error", (event) => {
    const img = event.target;
    if (!(img instanceof HTMLImageElement)) return;
    const figure = img.closest(".attachment-image");
    if (!figure) return;
    const chip = document.createElement("div");
    chip.className = "attachment";
    chip.textContent = "📎 " + (img.alt || "image");
    figure.replaceWith(chip);
  }, true);

  // ---- sidebar --------------------------------------------------------------------------
  function sidebarLink(deviceId, localTaskId) {
    return [...document.querySelectorAll("#sidebar-content a.task")]
      .find((a) => a.dataset.deviceId === deviceId && a.dataset.localTaskId === localTaskId);
  }
  function markCurrent() {
    document.querySelectorAll("#sidebar-content a.task").forEach((a) => {
      const current = a.dataset.deviceId === state.deviceId && a.dataset.localTaskId === state.localTaskId;
      a.classList.toggle("current", current);
      if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
    });
  }
  function restoreSections() {
    document.querySelectorAll("#sidebar-content details[data-section]").forEach((d) => {
      const saved = localStorage.getItem("hangar.section." + d.dataset.section);
      if (saved !== null) d.open = saved === "open";
      d.addEventListener("toggle", () => localStorage.setItem("hangar.section." + d.dataset.section, d.open ? "open" : "closed"));
    });
  }
  // The device picker (several devices): shows one device's projects and conversations.
  function applyPicker() {
    const picker = $("device-picker");
    const chosen = picker ? sessionStorage.getItem("hangar.device") || "" : "";
    if (picker) {
      if ([...picker.options].some((o) => o.value === chosen && !o.disabled)) picker.value = chosen;
      else picker.value = "";
    }
    const value = picker ? picker.value : "";
    document.querySelectorAll("#sidebar-content details.project, #sidebar-content a.task").forEach((el) => {
      const item = el.matches("a.task") ? el.closest("li") : el;
      if (value && el.dataset.deviceId !== value) item.setAttribute("data-hidden-by-picker", "");
      else item.removeAttribute("data-hidden-by-picker");
    });
    if (picker) picker.onchange = () => { sessionStorage.setItem("hangar.device", picker.value); applyPicker(); };
  }
  async function refreshSidebar() {
    const q = new URLSearchParams({ deviceId: state.deviceId, localTaskId: state.localTaskId });
    try {
      $("sidebar-content").innerHTML = await hangar.html("/ui/sidebar?" + q);
      restoreSections();
      applyPicker();
      markCurrent();
      document.dispatchEvent(new CustomEvent("hangar:sidebar-refreshed"));
    } catch (err) { hangar.status(err.message); }
  }

  $("sidebar").addEventListener("click", (event) => {
    const link = event.target.closest("a.task");
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    openTask(link.dataset.deviceId, link.dataset.localTaskId);
  });
  $("sidebar-toggle").addEventListener("click", () => $("layout").classList.toggle("sidebar-open"));
  window.addEventListener("popstate", () => {
    const q = new URLSearchParams(location.search);
    if (q.get("deviceId") && q.get("localTaskId")) openTask(q.get("deviceId"), q.get("localTaskId"), { push: false });
  });
  scroller.addEventListener("scroll", () => { if (scroller.scrollTop < 200) loadOlder(); });
  messagesEl.addEventListener("click", (event) => {
    const gap = event.target.closest(".gap");
    if (gap) fillGap(gap, false);
  });

  // Search lives in search.js; it opens results through window.hangarRuntime.open.

  // ---- actions --------------------------------------------------------------------------
  // The open task's archive state drives its button: Archive, or Unarchive once archived.
  function setArchived(archived) {
    state.archived = archived;
    $("archive-button").textContent = archived ? "Unarchive" : "Archive";
    $("archived-mark").hidden = !archived;
  }
  $("rename-button").addEventListener("click", async () => {
    if (!state.localTaskId) return;
    const title = await hangar.ask("Rename this task", { input: $("task-title").textContent, okLabel: "Rename" });
    if (!title) return;
    try {
      await hangar.api("/api/runtime-work/rename", { deviceId: state.deviceId, localTaskId: state.localTaskId, title });
      $("task-title").textContent = title;
      refreshSidebar();
    } catch (err) { hangar.status(err.message); }
  });
  $("archive-button").addEventListener("click", async () => {
    if (!state.localTaskId) return;
    const address = { deviceId: state.deviceId, localTaskId: state.localTaskId };
    if (state.archived) {
      try {
        await hangar.api("/api/runtime-work/archived-conversations/unarchive", address);
        setArchived(false);
        hangar.status("Unarchived.");
        await refreshSidebar();
      } catch (err) { hangar.status(err.message); }
      return;
    }
    const ok = await hangar.ask(`Archive "${$("task-title").textContent}"? You find it under Archived.`, { okLabel: "Archive" });
    if (!ok) return;
    try {
      await hangar.api("/api/runtime-work/archived-conversations/archive", address);
      setArchived(true);
      hangar.status("Archived.");
      await refreshSidebar();
    } catch (err) { hangar.status(err.message); }
  });

  // ---- live updates (SSE) ---------------------------------------------------------------
  let sidebarTimer = null, transcriptTimer = null;
  const events = hangar.events(() => {
    refreshSidebar();
    if (state.localTaskId) refreshOpenTask();
  });
  events.addEventListener("runtime.changed", (event) => {
    const data = JSON.parse(event.data || "{}");
    clearTimeout(sidebarTimer);
    sidebarTimer = setTimeout(refreshSidebar, 150);
    const ids = data.localTaskIds;
    if (state.localTaskId && (!ids || !ids.length || ids.includes(state.localTaskId))) {
      clearTimeout(transcriptTimer);
      transcriptTimer = setTimeout(refreshOpenTask, 150);
    }
  });

  // A message deep link: /runtime-tasks?deviceId=…&localTaskId=…#user-<clientUserMessageId>
  // for a user message that has one, else #msg-12 (an index: older links keep working).
  function hashIndex() {
    const match = /^#msg-(\d+)$/.exec(location.hash);
    return match ? Number(match[1]) : null;
  }
  function hashClientId() {
    const match = /^#user-(.+)$/.exec(location.hash);
    if (!match) return null;
    try { return decodeURIComponent(match[1]); } catch { return null; }
  }
  async function jumpTo(index) {
    await state.opening; // a jump right after opening waits for the first page
    if (!covered(index)) {
      try {
        await loadPage({ beforeIndex: Math.min(state.total, index + 10), limit: PAGE }, false);
      } catch (err) { hangar.status(err.message); }
      renderGaps();
    }
    highlight(index);
  }
  window.addEventListener("hashchange", async () => {
    if (!state.localTaskId) return;
    const index = hashIndex(), clientId = hashClientId();
    if (index !== null) jumpTo(index);
    else if (clientId !== null) { await state.opening; showUserMessage(clientId); }
  });

  // ---- watching a task: a browser notification when its reply is final ----------------
  const watchKey = () => state.deviceId + "/" + state.localTaskId;
  const watched = () => new Set(JSON.parse(localStorage.getItem("hangar.watched") || "[]"));
  function showWatch() {
    const button = $("watch-button");
    if (!button) return;
    const on = watched().has(watchKey());
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Watching" : "Watch";
  }
  $("watch-button")?.addEventListener("click", async () => {
    const all = watched(), key = watchKey();
    if (all.has(key)) all.delete(key); else all.add(key);
    localStorage.setItem("hangar.watched", JSON.stringify([...all]));
    if (all.has(key) && "Notification" in window && Notification.permission === "default") {
      await Notification.requestPermission();
    }
    showWatch();
  });
  const notified = new Set();
  events.addEventListener("runtime.tasks.updated", (event) => {
    const data = JSON.parse(event.data || "{}");
    const key = data.deviceId + "/" + data.localTaskId;
    if (!watched().has(key) || notified.has(key + "/" + data.updateKey)) return;
    notified.add(key + "/" + data.updateKey);
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    new Notification(`${data.title || "Task"} · ${data.status}`, { body: data.content || "", tag: key + "/" + data.updateKey });
  });

  // The composer (composer.js) continues the open task over the same event stream.
  window.hangarRuntime = {
    events,
    current: () => ({ deviceId: state.deviceId, localTaskId: state.localTaskId }),
    refresh: refreshOpenTask,
    refreshSidebar,
    open: openTask,
  };

  restoreSections();
  applyPicker();
  if (state.deviceId && state.localTaskId) {
    openTask(state.deviceId, state.localTaskId, { push: false, targetIndex: hashIndex(), targetClientId: hashClientId() });
  }
})();
