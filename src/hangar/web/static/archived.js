// Archived tasks page: unarchive and delete (with confirmation) through the API.
"use strict";
document.getElementById("archived")?.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-action]");
  if (!button) return;
  const item = button.closest(".archived-item");
  const address = { deviceId: item.dataset.deviceId, localTaskId: item.dataset.localTaskId };
  const action = button.dataset.action;
  if (action === "delete") {
    const title = item.querySelector(".task-name").textContent;
    const ok = await hangar.ask(`Delete "${title}"? It stays recoverable until the trash is purged.`, { okLabel: "Delete" });
    if (!ok) return;
  }
  button.disabled = true;
  try {
    await hangar.api(`/api/runtime-work/archived-conversations/${action}`, address);
    item.remove();
    hangar.status(action === "delete" ? "Deleted." : "Unarchived.");
  } catch (err) {
    button.disabled = false;
    hangar.status(err.message);
  }
});
