// The files panel: a read-only view of the open task's own directory with git status.
//
// Everything comes from the task's device (/api/runtime-work/files/*), for the directory the
// task ran in (RW-248..250): a worktree task shows the worktree. Directories open in place,
// a file opens below; symlinks are shown with their target and never followed. Names and
// contents are set as text, never as HTML.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const panel = $("files-panel"), toggle = $("files-button");
  if (!panel || !toggle) return;
  const STATUS_NAMES = { M: "modified", A: "added", D: "deleted", R: "renamed", C: "copied", T: "type changed", U: "unmerged", "?": "untracked" };
  let open = false, loadedKey = null;

  const request = (extra) => {
    const ctx = hangarTools.current();
    const body = { deviceId: ctx.deviceId, workspacePath: ctx.workspacePath, ...extra };
    if (ctx.localTaskId) body.localTaskId = ctx.localTaskId;
    return body;
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function load() {
    const ctx = hangarTools.current();
    if (!open || !ctx || !ctx.workspacePath) return;
    loadedKey = hangarTools.key(ctx) + "|" + ctx.workspacePath;
    $("files-root").textContent = ctx.workspacePath;
    $("file-view").hidden = true;
    $("files-tree").replaceChildren(el("li", "muted", "Loading…"));
    $("files-changes").replaceChildren();
    await Promise.all([loadStatus(), loadDirectory("", $("files-tree"))]);
  }

  async function loadStatus() {
    const line = $("files-git");
    try {
      const status = await hangar.api("/api/runtime-work/files/status", request({}));
      if (!status.repository) { line.textContent = "Not a git repository."; return; }
      const where = status.branch ? `On ${status.branch}` : `Detached at ${(status.head || "").slice(0, 10)}`;
      const count = status.entries.length;
      line.textContent = `${where} · ${count ? count + (status.truncated ? "+" : "") + " changed" : "no changes"}`;
      $("files-changes").replaceChildren(...status.entries.map(changeItem));
    } catch (err) { line.textContent = err.message; }
  }

  function changeItem(entry) {
    const letter = entry.worktree !== "." ? entry.worktree : entry.index;
    const li = el("li", "change");
    const button = el("button", "link file-link");
    button.type = "button";
    button.dataset.path = entry.path;
    button.append(el("span", `git-status git-${letter === "?" ? "untracked" : letter}`, letter), " ", el("span", "", entry.path));
    button.title = (STATUS_NAMES[letter] || letter) + (entry.originalPath ? ` from ${entry.originalPath}` : "");
    button.disabled = letter === "D";
    li.append(button);
    return li;
  }

  async function loadDirectory(path, list) {
    try {
      const listing = await hangar.api("/api/runtime-work/files/list", request({ path }));
      const items = listing.entries.map((entry) => entryItem(path, entry));
      if (!items.length) items.push(el("li", "muted", "(empty)"));
      if (listing.truncated) items.push(el("li", "muted", "(more entries not shown)"));
      list.replaceChildren(...items);
    } catch (err) { list.replaceChildren(el("li", "error", err.message)); }
  }

  function entryItem(parent, entry) {
    const path = parent ? `${parent}/${entry.name}` : entry.name;
    const li = el("li", `entry entry-${entry.kind}`);
    if (entry.kind === "dir") {
      const details = el("details");
      const summary = el("summary", "", entry.name + "/");
      const children = el("ul", "files-tree");
      details.append(summary, children);
      details.addEventListener("toggle", () => { if (details.open && !children.childElementCount) loadDirectory(path, children); });
      li.append(details);
    } else if (entry.kind === "file") {
      const button = el("button", "link file-link", entry.name);
      button.type = "button";
      button.dataset.path = path;
      li.append(button, " ", el("span", "muted", sizeText(entry.size)));
    } else if (entry.kind === "symlink") {
      li.append(el("span", "", entry.name), el("span", "muted", ` → ${entry.target ?? "?"} (symlink, not followed)`));
    } else {
      li.append(el("span", "muted", entry.name));
    }
    return li;
  }

  function sizeText(size) {
    if (size === null || size === undefined) return "";
    if (size < 1024) return `${size} B`;
    return size < 1048576 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1048576).toFixed(1)} MiB`;
  }

  async function showFile(path) {
    const view = $("file-view");
    view.hidden = false;
    $("file-view-path").textContent = path;
    $("file-view-note").textContent = "Loading…";
    $("file-view-text").textContent = "";
    try {
      const file = await hangar.api("/api/runtime-work/files/read", request({ path }));
      $("file-view-note").textContent = file.binary ? `binary file, ${sizeText(file.size)}`
        : file.truncated ? `first ${sizeText(file.text.length)} of ${sizeText(file.size)}` : sizeText(file.size);
      $("file-view-text").textContent = file.binary ? "" : file.text;
    } catch (err) { $("file-view-note").textContent = err.message; }
  }

  function render() {
    const ctx = hangarTools.current();
    toggle.disabled = !ctx || !ctx.workspacePath;
    toggle.setAttribute("aria-pressed", String(open));
    panel.hidden = !open;
  }

  panel.addEventListener("click", (event) => {
    const link = event.target.closest(".file-link");
    if (link && !link.disabled) showFile(link.dataset.path);
  });
  toggle.addEventListener("click", () => { open = !open; render(); if (open) load(); });
  $("files-hide").addEventListener("click", () => { open = false; render(); });
  $("files-refresh").addEventListener("click", load);
  hangarTools.onChange((ctx) => {
    render();
    const key = ctx ? hangarTools.key(ctx) + "|" + ctx.workspacePath : null;
    if (open && key !== loadedKey) load();
  });
  render();
})();
