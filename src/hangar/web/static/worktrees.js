// The Worktrees page: delete (the device snapshots first), restore, prune, settings; each
// through /api/runtime-work/worktrees/*, then the page shows the device's new state.
"use strict";
(() => {
  const root = document.getElementById("worktrees");
  if (!root) return;
  const deviceOf = (el) => el.closest(".wt-device").dataset.deviceId;
  const pruned = (result) => ((result && result.pruned && result.pruned.removed) || []).length;

  root.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    const deviceId = deviceOf(button), action = button.dataset.action;
    const item = button.closest(".wt-item");
    const worktreeId = item ? item.dataset.worktreeId : null;
    if (action === "delete") {
      const ok = await hangar.ask(`Delete worktree ${worktreeId}? Its tasks are archived and every uncommitted file is kept in a snapshot first; Restore brings it back.`, { okLabel: "Delete" });
      if (!ok) return;
    }
    button.disabled = true;
    try {
      const body = worktreeId ? { deviceId, worktreeId } : { deviceId };
      const result = await hangar.api(`/api/runtime-work/worktrees/${action}`, body);
      sessionStorage.setItem("hangar.worktrees.status", action === "prune" ? `Pruned ${pruned({ pruned: result })} worktree(s).` : action === "delete" ? `Deleted ${worktreeId}; snapshot kept.` : `Restored ${worktreeId}.`);
      location.reload();
    } catch (err) {
      button.disabled = false;
      hangar.status(err.message);
    }
  });

  root.addEventListener("submit", async (event) => {
    const form = event.target.closest("form.wt-settings");
    if (!form) return;
    event.preventDefault();
    const body = {
      deviceId: deviceOf(form),
      root: form.elements.root.value.trim(),
      autoCleanup: form.elements.autoCleanup.checked,
      keepCount: Number(form.elements.keepCount.value),
    };
    try {
      const result = await hangar.api("/api/runtime-work/worktrees/settings/update", body);
      sessionStorage.setItem("hangar.worktrees.status", `Settings saved; pruned ${pruned(result)} worktree(s).`);
      location.reload();
    } catch (err) { hangar.status(err.message); }
  });

  const said = sessionStorage.getItem("hangar.worktrees.status");
  if (said) { sessionStorage.removeItem("hangar.worktrees.status"); hangar.status(said); }
})();
